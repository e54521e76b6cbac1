package io.github.delaytask.listener;

import java.time.Duration;

import io.github.delaytask.core.RetryPolicy;

import org.springframework.util.Assert;

/**
 * How listeners consume tasks. Public for wiring.
 * @param concurrency handler threads shared by all listeners of the application
 * @param batchSize most tasks one poll claims
 * @param pollInterval longest wait between polls of an idle queue
 * @param shutdownTimeout how long running handlers may finish when the application stops
 * @param retryPolicy retries of a listener whose annotation does not say otherwise
 */
public record ListenerSettings(int concurrency, int batchSize, Duration pollInterval, Duration shutdownTimeout,
        RetryPolicy retryPolicy) {

    public ListenerSettings {
        Assert.isTrue(concurrency >= 1, "delay-task.listener.concurrency must be at least 1");
        Assert.isTrue(batchSize >= 1, "delay-task.listener.batch-size must be at least 1");
        Assert.isTrue(pollInterval.toMillis() >= 1, "delay-task.listener.poll-interval must be at least 1ms");
        Assert.isTrue(!shutdownTimeout.isNegative(), "delay-task.shutdown-timeout must not be negative");
    }

}
