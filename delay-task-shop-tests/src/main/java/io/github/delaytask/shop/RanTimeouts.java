package io.github.delaytask.shop;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delaytask.DelayTaskListener;

import org.springframework.stereotype.Component;

/**
 * The handler of order timeouts, which records the orders it ran for.
 */
@Component
public class RanTimeouts {

    private final List<String> orders = new CopyOnWriteArrayList<>();

    @DelayTaskListener(taskType = OrderTimeouts.ORDER_TIMEOUT)
    void cancelUnpaid(String order) {
        this.orders.add(order);
    }

    public List<String> orders() {
        return List.copyOf(this.orders);
    }

}
