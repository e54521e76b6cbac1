package io.github.delaytask.scheduling;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.delaytask.DistributedLocks;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.RecoveryMarkers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Brings back what Redis lost as soon as a claim notices, rather than at the next reload: a claim that finds its
 * queue's loaded marker missing, or that succeeds after a failed one, asks for a recovery, which one instance runs
 * under a lock of its own.
 * <p>
 * The recovery writes its id and the server's time into the markers of the queues that need it, then reloads from
 * the database, then marks loaded each queue whose marker still holds its id. A marker that survived the reload
 * proves that Redis lost nothing of that queue after the recovery began, so nothing the reload wrote and nothing
 * added since. A queue that lost its marker again stays unmarked, and its next claim asks again. A queue needs a
 * recovery unless its marker says that one began on its server at or after the claim that asked: this is also how a
 * loss that left the marker in place (a restart from an older snapshot, a fail-over to a replica that missed the
 * last writes) is recovered once rather than by every instance that saw Redis fail.
 */
final class RedisLossRecovery {

    private static final Log logger = LogFactory.getLog(RedisLossRecovery.class);

    /** The wait before the next try while another instance holds the lock. */
    static final Duration RETRY_WHILE_LOCKED = Duration.ofMillis(100);

    /**
     * The wait before the next try after recoveries failed more than once in a row, such as while the database is
     * down; the first failure, a blip more often than not, is tried again as soon as a busy lock would be.
     */
    static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(1);

    /**
     * Not the reload's lock: the reload keeps that one for most of an interval after each run, and on a Cluster a
     * master that lost a queue's keys may not hold the lock key.
     */
    static final String LOCK = "recovery";

    private final TaskReloader reloader;

    private final RecoveryMarkers markers;

    private final DistributedLocks locks;

    private final Supplier<Set<QueueId>> consumedQueues;

    private final Duration lockAtMostFor;

    /** By queue, the Redis time a recovery must have begun at or after. */
    private final Map<QueueId, Long> requested = new ConcurrentHashMap<>();

    private final AtomicBoolean runPending = new AtomicBoolean();

    /** Whether the last recovery failed: its warning is logged once for a streak of failures. */
    private volatile boolean failing;

    /**
     * @param consumedQueues the queues this instance claims from, marked together with those that asked: they lost
     * their data with the others, and their claims would otherwise ask for a recovery of their own moments later
     * @param lockAtMostFor how long a recovering instance that died blocks the next recovery
     */
    RedisLossRecovery(TaskReloader reloader, RecoveryMarkers markers, DistributedLocks locks,
            Supplier<Set<QueueId>> consumedQueues, Duration lockAtMostFor) {
        this.reloader = reloader;
        this.markers = markers;
        this.locks = locks;
        this.consumedQueues = consumedQueues;
        this.lockAtMostFor = lockAtMostFor;
    }

    /**
     * Ask for the recovery of a queue; cheap, for the claiming thread.
     * @param redisTime the Redis time of the claim that asks
     * @return whether the caller must have {@link #recover()} run: no run is pending yet
     */
    boolean request(QueueId queue, long redisTime) {
        this.requested.merge(queue, redisTime, Math::max);
        return this.runPending.compareAndSet(false, true);
    }

    /**
     * The run a {@link #request} asked for will not happen (the jobs' threads stopped before it ran): the next request
     * must ask for a run again, or none would ever be asked for after a restart of the jobs.
     */
    void runDropped() {
        this.runPending.set(false);
    }

    /**
     * Recover the queues asked for, unless another instance is at it: the asks then wait for a next run, as the
     * other instance may recover other queues or begin before the claims that asked. A recovery that fails (the
     * database or Redis failed during its reload) takes its markers back, and is asked for again.
     * @return how long the caller waits before it has this run again, or null for no run: a moment when another
     * instance held the lock or the recovery failed once, {@link #RETRY_AFTER_FAILURE} when it failed again
     */
    @Nullable Duration recover() {
        this.runPending.set(false);
        Map<QueueId, Long> asked = new LinkedHashMap<>();
        for (QueueId queue : List.copyOf(this.requested.keySet())) {
            Long since = this.requested.remove(queue);
            if (since != null) {
                asked.put(queue, since);
            }
        }
        if (asked.isEmpty()) {
            return null;
        }
        Optional<DistributedLocks.LockHandle> lock = this.locks.tryLock(LOCK, this.lockAtMostFor);
        if (lock.isEmpty()) {
            return askAgain(asked, RETRY_WHILE_LOCKED);
        }
        try {
            recover(asked, lock.get());
            this.failing = false;
            return null;
        }
        catch (RuntimeException ex) {
            boolean again = this.failing;
            if (!again) {
                logger.warn("delay-task could not recover the queues " + asked.keySet() + " that Redis may have "
                        + "lost; it tries again until it can", ex);
            }
            else {
                logger.debug("delay-task could not recover the queues " + asked.keySet() + " again", ex);
            }
            this.failing = true;
            return askAgain(asked, again ? RETRY_AFTER_FAILURE : RETRY_WHILE_LOCKED);
        }
        finally {
            // at once, not after a least time: Redis may lose its data again right after this recovery
            lock.get().unlock();
        }
    }

    /** Ask again for the given queues: the caller runs the recovery again after the wait unless a run is pending. */
    private @Nullable Duration askAgain(Map<QueueId, Long> asked, Duration wait) {
        asked.forEach((queue, since) -> this.requested.merge(queue, since, Math::max));
        return this.runPending.compareAndSet(false, true) ? wait : null;
    }

    private void recover(Map<QueueId, Long> asked, DistributedLocks.LockHandle lock) {
        Map<QueueId, Long> candidates = new LinkedHashMap<>(asked);
        // lost with the others, and about to ask: any recovery's mark will do for them
        this.consumedQueues.get().forEach((queue) -> candidates.putIfAbsent(queue, Long.MIN_VALUE));
        // another instance may have recovered them between the claims that asked and this lock; a marker left by a
        // recovery that died with its lock is taken over
        List<QueueId> unloaded = this.markers.unloaded(candidates);
        if (unloaded.isEmpty()) {
            return;
        }
        long started = System.nanoTime();
        String id = UUID.randomUUID().toString();
        this.markers.beginRecovery(unloaded, id);
        int count;
        try {
            count = this.reloader.reload(() -> lock.extend(this.lockAtMostFor), false);
        }
        catch (RuntimeException | Error ex) {
            // claims count a marker as loaded: one left behind would have them wait for the periodic reload
            try {
                this.markers.abortRecovery(unloaded, id);
            }
            catch (RuntimeException abort) {
                ex.addSuppressed(abort);
            }
            throw ex;
        }
        List<QueueId> marked = this.markers.finishRecovery(unloaded, id);
        logger.info("Redis may have lost tasks of delay-task queue(s) " + unloaded + " (it lost its data, came back "
                + "after failing, or started empty): reloaded " + count + " task(s) from the database in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
        if (marked.size() < unloaded.size()) {
            List<QueueId> unmarked = unloaded.stream().filter((queue) -> !marked.contains(queue)).toList();
            logger.info("Queue(s) " + unmarked + " lost the recovery's marker while it ran (Redis lost data again, or "
                    + "another instance recovers them too); their next claim finds out");
        }
    }

}
