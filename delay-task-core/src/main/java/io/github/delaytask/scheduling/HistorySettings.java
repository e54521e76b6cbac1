package io.github.delaytask.scheduling;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * How long finished tasks stay in {@code taskinfo_logs}, and when the purge job runs. Public for wiring.
 * @param retention how long executed and cancelled tasks stay after they finished
 * @param deadRetention how long dead tasks stay after their last attempt, or null to keep them until requeued
 * @param purgeInterval time between purges
 * @param purgeEnabled whether the purge job runs
 */
public record HistorySettings(Duration retention, @Nullable Duration deadRetention, Duration purgeInterval,
        boolean purgeEnabled) {

    public HistorySettings {
        Assert.isTrue(retention.toMillis() > 0,
                () -> "delay-task.history.retention must be positive, not " + retention);
        Assert.isTrue(deadRetention == null || deadRetention.toMillis() > 0,
                () -> "delay-task.history.dead-retention must be positive when set, not " + deadRetention);
        Assert.isTrue(purgeInterval.toMillis() > 0,
                () -> "delay-task.history.purge-interval must be positive, not " + purgeInterval);
    }

}
