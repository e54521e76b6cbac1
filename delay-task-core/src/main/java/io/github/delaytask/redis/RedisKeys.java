package io.github.delaytask.redis;

import java.util.function.Supplier;

import io.github.delaytask.core.QueueId;

import org.springframework.util.Assert;

/**
 * Builds every Redis key the starter uses. Public for wiring.
 * <p>
 * Every key starts with the prefix: the one configured, or by default {@value #DEFAULT_PREFIX} and the id of the
 * task store ({@code taskinfo_store}), so that applications with databases of their own never share keys or locks
 * in one Redis unless told to. The keys of one queue share the hash tag {@code {type:priority}}, so each script
 * touches a single slot and runs unchanged on Redis Cluster.
 */
public final class RedisKeys {

    /** The start of every key unless a prefix is configured. */
    public static final String DEFAULT_PREFIX = "delay-task";

    private final Supplier<String> source;

    private final boolean ofOneStore;

    private volatile String prefix;

    /**
     * Keys under the given prefix.
     * @throws IllegalArgumentException if the prefix is empty or holds a brace
     */
    public RedisKeys(String prefix) {
        this.prefix = checked(prefix);
        this.source = () -> prefix;
        this.ofOneStore = false;
    }

    private RedisKeys(Supplier<String> source) {
        this.source = source;
        this.ofOneStore = true;
    }

    /**
     * Keys under a prefix found on first use, such as one that needs the database: not at start-up, which must not
     * reach it.
     */
    public static RedisKeys resolvedOnFirstUse(Supplier<String> prefix) {
        return new RedisKeys(prefix);
    }

    /**
     * Whether the prefix was found rather than configured: the task store's own, which no other application's keys
     * share, so that an id in them that the store does not know is one it finished and forgot (its history purged),
     * never another application's task.
     */
    public boolean ofOneStore() {
        return this.ofOneStore;
    }

    /** The prefix of every key, found now if it was not yet. */
    public String prefix() {
        String resolved = this.prefix;
        if (resolved == null) {
            resolved = checked(this.source.get());
            this.prefix = resolved;
        }
        return resolved;
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

    /**
     * The queue's loaded marker: lost with the rest of Redis's data, so a claim that finds it missing knows that the
     * queue may miss tasks the database holds. In the queue's hash tag, so that the claim script can read it on a
     * Cluster, where a queue's keys live on one master and are lost with that master's data alone.
     */
    String loaded(QueueId queue) {
        return queueKey(queue, "loaded");
    }

    /**
     * The queue's paused flag, read by every claim. In the queue's hash tag, so that the claim script can read it on a
     * Cluster.
     */
    String paused(QueueId queue) {
        return queueKey(queue, "paused");
    }

    /**
     * The recent claims of a queue with a cluster-wide rate: each id claimed, by the time of its claim, for as long as
     * it counts against the rate. In the queue's hash tag, so that the claim script can read it on a Cluster.
     */
    String claimedRecently(QueueId queue) {
        return queueKey(queue, "claimed-recently");
    }

    /**
     * The feed's marker: the horizon up to which the feed brought every task into Redis, or the id of a full pass under
     * way. Lost with Redis's data, so that a Redis that lost it has the feed start over.
     */
    String feed() {
        return prefix() + ":feed";
    }

    /** The set of queues in use, so that no job has to list keys. */
    String queues() {
        return prefix() + ":queues";
    }

    /**
     * The pub/sub channel of wake-ups between instances. A channel, not a key: on a Cluster a publish reaches every
     * node, so it needs no hash tag.
     */
    String wakeUps() {
        return prefix() + ":wake-ups";
    }

    /**
     * The settings the instances must agree on, as the running ones have them; with {@link #settingsHolders()}, in a
     * hash tag of its own, so that one script reads both on a Cluster.
     */
    String settings() {
        return prefix() + ":{settings}";
    }

    /** The instances that hold the record of {@link #settings()}, and when each one's hold lapses. */
    String settingsHolders() {
        return prefix() + ":{settings}:holders";
    }

    public String lock(String name) {
        return prefix() + ":lock:" + name;
    }

    /** The hash recording the latest run of a lock, kept apart from the lock key so that it outlives the lock. */
    public String lockRun(String name) {
        return prefix() + ":lock-run:" + name;
    }

    private String queueKey(QueueId queue, String kind) {
        return prefix() + ":{" + queue.taskType() + ":" + queue.priority() + "}:" + kind;
    }

    private static String checked(String prefix) {
        Assert.hasText(prefix, "delay-task.redis.key-prefix must not be empty");
        Assert.isTrue(prefix.indexOf('{') < 0 && prefix.indexOf('}') < 0, () -> "delay-task.redis.key-prefix '"
                + prefix + "' must not contain '{' or '}': the starter sets the hash tags");
        return prefix;
    }

}
