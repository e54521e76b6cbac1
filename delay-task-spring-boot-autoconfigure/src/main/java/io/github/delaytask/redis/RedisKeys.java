package io.github.delaytask.redis;

import org.springframework.util.Assert;

/**
 * Builds every Redis key the starter uses. Public for wiring.
 * <p>
 * The keys of one queue share the hash tag {@code {type:priority}}, so each script touches a single slot and runs
 * unchanged on Redis Cluster.
 */
public final class RedisKeys {

    private final String prefix;

    public RedisKeys(String prefix) {
        Assert.hasText(prefix, "Key prefix must not be empty");
        Assert.isTrue(prefix.indexOf('{') < 0 && prefix.indexOf('}') < 0,
                () -> "Key prefix '" + prefix + "' must not contain '{' or '}': the starter sets the hash tags");
        this.prefix = prefix;
    }

    String future(QueueId queue) {
        return queueKey(queue, "future");
    }

    String ready(QueueId queue) {
        return queueKey(queue, "ready");
    }

    String inFlight(QueueId queue) {
        return queueKey(queue, "inflight");
    }

    /** The set of queues in use, so that no job has to list keys. */
    String queues() {
        return this.prefix + ":queues";
    }

    public String lock(String name) {
        return this.prefix + ":lock:" + name;
    }

    /** The hash recording the latest run of a lock, kept apart from the lock key so that it outlives the lock. */
    public String lockRun(String name) {
        return this.prefix + ":lock-run:" + name;
    }

    private String queueKey(QueueId queue, String kind) {
        return this.prefix + ":{" + queue.taskType() + ":" + queue.priority() + "}:" + kind;
    }

}
