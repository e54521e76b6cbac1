package io.github.delaytask.listener;

import java.time.Duration;

import io.github.delaytask.core.RetryPolicy;

import org.springframework.util.Assert;

/**
 * How listeners consume tasks. Public for wiring.
 * @param concurrency handler threads shared by all listeners of the application
 * @param prefetch most tasks claimed ahead of free handler threads
 * @param batchSize most tasks one claim takes from a queue
 * @param pollInterval longest wait between looks at an idle queue without wake-ups, and for a free handler thread
 * @param shutdownTimeout how long running handlers may finish when the application stops
 * @param lease how long a claimed task stays with this instance before it is delivered again
 * @param retryPolicy retries of a listener whose annotation does not say otherwise
 * @param virtualThreads whether handlers run on virtual threads (Java 21 or later), as many at once as on platform
 * threads
 * @param idleLook longest wait between looks at a queue that holds nothing due: the poll interval without wake-ups,
 * longer with them, as they tell of every task scheduled to be due sooner
 * @param timeout longest run of a handler whose listener sets none of its own
 */
public record ListenerSettings(int concurrency, int prefetch, int batchSize, Duration pollInterval,
        Duration shutdownTimeout, Duration lease, RetryPolicy retryPolicy, boolean virtualThreads, Duration idleLook,
        Duration timeout) {

    /** The longest run of a handler unless set otherwise: long enough for exports, reports and slow partners. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);

    /** The most of tasks' parameters one claim may read at once: 64 MB. */
    public static final long CLAIM_PARAMETERS_BYTES = 64L << 20;

    /**
     * The tasks one claim may take: the batch size, but no more than {@link #CLAIM_PARAMETERS_BYTES} of the largest
     * parameters allowed. A claim reads every task's parameters from the database in one answer, so a batch of 100
     * with parameters of up to 16 MB could hold 1.6 GB at once.
     * @param batchSize {@code delay-task.listener.batch-size}
     * @param maxParametersBytes {@code delay-task.max-parameters-size}
     */
    public static int claimBatch(int batchSize, long maxParametersBytes) {
        long fits = CLAIM_PARAMETERS_BYTES / Math.max(1, maxParametersBytes);
        return (int) Math.max(1, Math.min(batchSize, fits));
    }

    /** Settings that look at an idle queue every poll interval. */
    public ListenerSettings(int concurrency, int prefetch, int batchSize, Duration pollInterval,
            Duration shutdownTimeout, Duration lease, RetryPolicy retryPolicy, boolean virtualThreads) {
        this(concurrency, prefetch, batchSize, pollInterval, shutdownTimeout, lease, retryPolicy, virtualThreads,
                pollInterval);
    }

    /** Settings with the default timeout of handlers. */
    public ListenerSettings(int concurrency, int prefetch, int batchSize, Duration pollInterval,
            Duration shutdownTimeout, Duration lease, RetryPolicy retryPolicy, boolean virtualThreads,
            Duration idleLook) {
        this(concurrency, prefetch, batchSize, pollInterval, shutdownTimeout, lease, retryPolicy, virtualThreads,
                idleLook, DEFAULT_TIMEOUT);
    }

    public ListenerSettings {
        Assert.isTrue(concurrency >= 1, "delay-task.listener.concurrency must be at least 1");
        Assert.isTrue(prefetch >= 0, "delay-task.listener.prefetch must not be negative");
        Assert.isTrue(batchSize >= 1, "delay-task.listener.batch-size must be at least 1");
        Assert.isTrue(pollInterval.toMillis() >= 1, "delay-task.listener.poll-interval must be at least 1ms");
        Assert.isTrue(!shutdownTimeout.isNegative(), "delay-task.shutdown-timeout must not be negative");
        Assert.isTrue(timeout.toMillis() >= 1, "delay-task.listener.timeout must be at least 1ms");
        Assert.isTrue(idleLook.compareTo(pollInterval) >= 0,
                "delay-task.listener.idle-poll-interval must not be shorter than delay-task.listener.poll-interval");
    }

}
