package io.github.delaytask.sample.order;

import java.util.Optional;

import io.github.delaytask.DistributedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A nightly report of the orders their timeout cancelled: a cluster-safe {@code @Scheduled} job, run by one instance
 * per trigger however many the sample runs on.
 */
@Component
public class OrderReport {

    private static final Logger logger = LoggerFactory.getLogger(OrderReport.class);

    private final OrderRepository orders;

    OrderReport(OrderRepository orders) {
        this.orders = orders;
    }

    /**
     * Count the cancelled orders and log the figure.
     * @return the count, or empty when another instance ran the report within the last 30 seconds
     */
    @Scheduled(cron = "0 0 2 * * *")
    @DistributedLock(name = "sample-order-report", lockAtMostFor = "5m", lockAtLeastFor = "30s")
    public Optional<Long> report() {
        long cancelled = this.orders.countByStatus(OrderStatus.CANCELLED);
        logger.info("Orders cancelled by their payment timeout: {}", cancelled);
        return Optional.of(cancelled);
    }

}
