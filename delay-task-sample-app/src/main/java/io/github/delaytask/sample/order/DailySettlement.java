package io.github.delaytask.sample.order;

import java.time.Instant;
import java.time.ZoneId;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.sample.TaskTypes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The day's settlement of paid orders: a recurring schedule stored in the database, so that a night every instance
 * was down is settled once they are back, and operators can pause it from the dashboard. Beside it,
 * {@link OrderReport} shows the other way, a cluster-safe {@code @Scheduled} job whose missed nights are skipped.
 */
@Configuration(proxyBeanMethods = false)
public class DailySettlement {

    private static final Logger logger = LoggerFactory.getLogger(DailySettlement.class);

    private final OrderRepository orders;

    DailySettlement(OrderRepository orders) {
        this.orders = orders;
    }

    @Bean
    static TaskSchedule dailySettlementSchedule() {
        return TaskSchedule.cron("daily-settlement", "0 30 1 * * *", ZoneId.of("Asia/Shanghai"))
            .taskType(TaskTypes.DAILY_SETTLEMENT)
            .catchUp(TaskSchedule.CatchUp.ONCE)
            .build();
    }

    @DelayTaskListener(taskType = TaskTypes.DAILY_SETTLEMENT, name = "settlement")
    void settle(DelayTask task) {
        logger.info("Settling the orders paid by {}: {}", Instant.ofEpochMilli(task.getExecuteTime()),
                this.orders.countByStatus(OrderStatus.PAID));
    }

}
