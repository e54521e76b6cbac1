package io.github.delaytask.shop;

import java.time.Duration;

import com.baomidou.dynamic.datasource.annotation.DS;
import com.baomidou.dynamic.datasource.annotation.DSTransactional;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The shop's business code around the starter: adds from methods on either data source, inside and outside
 * transactions, and a listener that records what ran.
 */
@Service
public class OrderTimeouts {

    /** The task type of an unpaid order's timeout. */
    public static final int ORDER_TIMEOUT = 1;

    private final DelayTaskService tasks;

    public OrderTimeouts(DelayTaskService tasks) {
        this.tasks = tasks;
    }

    /** An add from a method that reads the slave, outside a transaction. */
    @DS("slave")
    public long addFromSlave(String order) {
        return add(order);
    }

    /** An add in a transaction on the master, which then fails or commits. */
    @Transactional
    public long addInMasterTransaction(String order, boolean fail) {
        long id = add(order);
        failIf(fail);
        return id;
    }

    /** An add without a business key, which adds at the same moment could share a statement, in a transaction. */
    @Transactional
    public long addWithoutKeyInMasterTransaction(String order, boolean fail) {
        long id = this.tasks.addTask(DelayTask.builder(ORDER_TIMEOUT).delay(Duration.ofMillis(200)).parameters(order)
            .build());
        failIf(fail);
        return id;
    }

    /** An add in a transaction begun on the slave, which then fails or commits. */
    @DS("slave")
    @Transactional
    public long addInSlaveTransaction(String order, boolean fail) {
        long id = add(order);
        failIf(fail);
        return id;
    }

    /** An add in a transaction that dynamic-datasource runs itself, which then fails or commits. */
    @DSTransactional
    public long addInDsTransaction(String order, boolean fail) {
        long id = add(order);
        failIf(fail);
        return id;
    }

    private long add(String order) {
        return this.tasks.addTask(DelayTask.builder(ORDER_TIMEOUT).delay(Duration.ofMillis(200)).bizKey(order)
            .parameters(order).build());
    }

    private static void failIf(boolean fail) {
        if (fail) {
            throw new IllegalStateException("the business transaction failed");
        }
    }

}
