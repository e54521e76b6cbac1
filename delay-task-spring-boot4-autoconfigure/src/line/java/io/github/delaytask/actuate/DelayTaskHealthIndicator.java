package io.github.delaytask.actuate;

import io.github.delaytask.health.DelayTaskHealth;
import io.github.delaytask.health.HealthReport;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code delayTask} health contributor: {@code UP} while the listeners run and Redis and the database answer,
 * {@code OUT_OF_SERVICE} while the application starts or stops, {@code DOWN} once Redis or the database has not
 * answered for longer than {@code delay-task.health.unreachable-after}. Its details name the listeners and their
 * queues, the last reload and the last error seen.
 * <p>
 * Put it in the readiness group, never in liveness: an outage of Redis or the database is shared by every instance,
 * and restarting them all would not end it.
 */
public class DelayTaskHealthIndicator implements HealthIndicator {

    private final DelayTaskHealth health;

    public DelayTaskHealthIndicator(DelayTaskHealth health) {
        this.health = health;
    }

    @Override
    public Health health() {
        HealthReport report = this.health.check();
        // the report's statuses bear the names of Boot's status codes
        return Health.status(report.status().name()).withDetails(report.details()).build();
    }

}
