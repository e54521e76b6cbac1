package io.github.delaytask.core;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How the task service adds and polls tasks. Public for wiring.
 * @param preloadWindow how far ahead tasks go into Redis when they are added
 * @param maxParametersSize largest task parameters accepted, in bytes
 * @param groupAdds whether concurrent single adds outside a transaction share one statement and commit
 * @param redisHandOffTimeout longest wait of a caller for Redis after its change was committed
 * @param retryPolicy retries of tasks whose {@code poll} handler failed
 */
public record ServiceSettings(Duration preloadWindow, long maxParametersSize, boolean groupAdds,
        Duration redisHandOffTimeout, RetryPolicy retryPolicy) {

    /** The most a MySQL {@code MEDIUMBLOB} holds; PostgreSQL and H2 hold more. */
    public static final int MAX_PARAMETERS_SIZE = 16 * 1024 * 1024 - 1;

    public ServiceSettings {
        Assert.isTrue(maxParametersSize >= 1 && maxParametersSize <= MAX_PARAMETERS_SIZE,
                () -> "delay-task.max-parameters-size (" + maxParametersSize + " bytes) must be between 1B and "
                        + MAX_PARAMETERS_SIZE + "B, what a MySQL MEDIUMBLOB holds");
        Assert.isTrue(!redisHandOffTimeout.isNegative(), "delay-task.redis.hand-off-timeout must not be negative");
    }

}
