package io.github.delaytask.sample.order;

import java.time.Duration;
import java.util.Optional;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.sample.TaskTypes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates orders, takes payments, and cancels orders that are not paid in time.
 */
@Service
public class OrderService {

    private static final Logger logger = LoggerFactory.getLogger(OrderService.class);

    private final OrderRepository orders;

    private final DelayTaskService tasks;

    OrderService(OrderRepository orders, DelayTaskService tasks) {
        this.orders = orders;
        this.tasks = tasks;
    }

    /**
     * Create an unpaid order that is cancelled unless it is paid within the timeout.
     * @param timeout how long the order waits for payment
     * @return the new order
     */
    @Transactional
    public Order create(Duration timeout) {
        long id = this.orders.insert(OrderStatus.UNPAID);
        // The task is stored in this transaction: if it rolls back, neither the order nor its timeout exists.
        DelayTask timeoutTask = DelayTask.builder(TaskTypes.ORDER_TIMEOUT).delay(timeout).payload(id).build();
        long taskId = this.tasks.addTask(timeoutTask);
        this.orders.setTaskId(id, taskId);
        return new Order(id, OrderStatus.UNPAID, taskId);
    }

    public Optional<Order> find(long id) {
        return this.orders.find(id);
    }

    /**
     * Pay an unpaid order and cancel its timeout task.
     * @param id the order's id
     * @return the payment, or empty if the order is unknown or no longer unpaid
     */
    public Optional<Payment> pay(long id) {
        Optional<Order> order = this.orders.find(id);
        if (order.isEmpty() || !this.orders.changeStatus(id, OrderStatus.UNPAID, OrderStatus.PAID)) {
            return Optional.empty();
        }
        // Not needed for correctness, since the timeout leaves paid orders alone, but it spares a task that would
        // run for nothing.
        boolean timeoutCancelled = this.tasks.cancelTask(order.get().taskId());
        return Optional.of(new Payment(id, OrderStatus.PAID, timeoutCancelled));
    }

    /**
     * Cancel the order if it is still unpaid when its timeout is due. The starter reads the order id from the
     * task's JSON payload.
     * @param orderId the order's id
     */
    @DelayTaskListener(taskType = TaskTypes.ORDER_TIMEOUT, name = "order-timeout")
    public void cancelIfUnpaid(Long orderId) {
        if (this.orders.changeStatus(orderId, OrderStatus.UNPAID, OrderStatus.CANCELLED)) {
            logger.info("Order {} was not paid in time and is cancelled", orderId);
        }
    }

}
