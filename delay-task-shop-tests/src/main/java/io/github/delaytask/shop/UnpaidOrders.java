package io.github.delaytask.shop;

import java.time.Duration;

import com.baomidou.mybatisplus.core.conditions.query.LambdaQueryWrapper;
import com.baomidou.mybatisplus.core.conditions.update.LambdaUpdateWrapper;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The README's pattern in a tenant-scoped shop: an order placed unpaid gets a timeout task in the same transaction,
 * and the timeout's handler cancels it through the shop's own tenant-scoped mapper, for the tenant that placed it.
 */
@Service
public class UnpaidOrders {

    /** The task type of the cancel of an order left unpaid. */
    public static final int CANCEL_UNPAID = 2;

    private final ShopOrderMapper orders;

    private final DelayTaskService tasks;

    public UnpaidOrders(ShopOrderMapper orders, DelayTaskService tasks) {
        this.orders = orders;
        this.tasks = tasks;
    }

    /** Places an order for the thread's tenant, to be cancelled if still unpaid after the delay. */
    @Transactional
    public long place(String orderNo, Duration payWithin) {
        ShopOrder order = new ShopOrder();
        order.setOrderNo(orderNo);
        order.setStatus("UNPAID");
        this.orders.insert(order);
        return this.tasks.addTask(DelayTask.builder(CANCEL_UNPAID).delay(payWithin).parameters(orderNo).build());
    }

    /** The status of the thread's tenant's order. */
    public String status(String orderNo) {
        ShopOrder order = this.orders.selectOne(new LambdaQueryWrapper<ShopOrder>()
            .eq(ShopOrder::getOrderNo, orderNo));
        return (order != null) ? order.getStatus() : null;
    }

    @DelayTaskListener(taskType = CANCEL_UNPAID)
    void cancelUnpaid(String orderNo) {
        this.orders.update(new LambdaUpdateWrapper<ShopOrder>().set(ShopOrder::getStatus, "CANCELLED")
            .eq(ShopOrder::getOrderNo, orderNo)
            .eq(ShopOrder::getStatus, "UNPAID"));
    }

}
