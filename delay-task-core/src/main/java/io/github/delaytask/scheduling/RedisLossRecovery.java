package io.github.delaytask.scheduling;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.delaytask.DistributedLocks;
import io.github.delaytask.redis.QueueId;
import io.github.delaytask.redis.TaskQueues;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Brings back what Redis lost as soon as a claim notices, rather than at the next reload: a claim that finds its
 * queue's loaded marker missing asks for a recovery, which one instance runs under a lock of its own.
 * <p>
 * The recovery writes a token of its own into the markers of this instance's queues that are not marked loaded, then
 * reloads from the database, then marks loaded each queue whose marker still holds the token. A token that survived the reload
 * proves that Redis lost nothing of that queue after the token was written, so nothing the reload wrote and nothing
 * added since it began. A queue that lost its token again stays unmarked, and its next claim asks again.
 */
final class RedisLossRecovery {

    private static final Log logger = LogFactory.getLog(RedisLossRecovery.class);

    /**
     * Not the reload's lock: the reload keeps that one for most of an interval after each run, and on a Cluster a
     * master that lost a queue's keys may not hold the lock key.
     */
    static final String LOCK = "recovery";

    private final TaskReloader reloader;

    private final TaskQueues queues;

    private final DistributedLocks locks;

    private final Supplier<Set<QueueId>> consumedQueues;

    private final Duration lockAtMostFor;

    private final Set<QueueId> requested = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean runPending = new AtomicBoolean();

    /**
     * @param consumedQueues the queues this instance claims from, marked together with those that asked: they lost
     * their data with the others, and their claims would otherwise ask for a recovery of their own moments later
     * @param lockAtMostFor how long a recovering instance that died blocks the next recovery
     */
    RedisLossRecovery(TaskReloader reloader, TaskQueues queues, DistributedLocks locks,
            Supplier<Set<QueueId>> consumedQueues, Duration lockAtMostFor) {
        this.reloader = reloader;
        this.queues = queues;
        this.locks = locks;
        this.consumedQueues = consumedQueues;
        this.lockAtMostFor = lockAtMostFor;
    }

    /**
     * Ask for the recovery of a queue; cheap, for the claiming thread.
     * @return whether the caller must have {@link #recover()} run: no run is pending yet
     */
    boolean request(QueueId queue) {
        this.requested.add(queue);
        return this.runPending.compareAndSet(false, true);
    }

    /**
     * Recover the queues asked for, unless another instance is at it. Asks that come meanwhile are taken by the
     * next run or dropped: a queue still unmarked is asked for again by its next claim.
     * @return how many tasks were reloaded, or -1 when no reload was needed or another instance held the lock
     */
    int recover() {
        this.runPending.set(false);
        Set<QueueId> asked = new LinkedHashSet<>(this.requested);
        this.requested.removeAll(asked);
        if (asked.isEmpty()) {
            return -1;
        }
        Optional<DistributedLocks.LockHandle> lock = this.locks.tryLock(LOCK, this.lockAtMostFor);
        if (lock.isEmpty()) {
            return -1;
        }
        try {
            return recover(asked, lock.get());
        }
        finally {
            // at once, not after a least time: Redis may lose its data again right after this recovery
            lock.get().unlock();
        }
    }

    private int recover(Set<QueueId> asked, DistributedLocks.LockHandle lock) {
        Set<QueueId> candidates = new LinkedHashSet<>(asked);
        candidates.addAll(this.consumedQueues.get());
        // another instance may have recovered them between the claims that asked and this lock; a token left by a
        // recovery that died with its lock is taken over
        List<QueueId> unloaded = this.queues.unloaded(candidates);
        if (unloaded.isEmpty()) {
            return -1;
        }
        long started = System.nanoTime();
        String token = "recovering:" + UUID.randomUUID();
        this.queues.beginRecovery(unloaded, token);
        int count = this.reloader.reload(() -> lock.extend(this.lockAtMostFor));
        List<QueueId> marked = this.queues.finishRecovery(unloaded, token);
        logger.info("Redis held no loaded marker for delay-task queue(s) " + unloaded + " (Redis lost its data, or "
                + "started empty): reloaded " + count + " task(s) from the database in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
        if (marked.size() < unloaded.size()) {
            List<QueueId> unmarked = unloaded.stream().filter((queue) -> !marked.contains(queue)).toList();
            logger.info("Queue(s) " + unmarked + " lost the recovery's marker while it ran (Redis lost data again, or "
                    + "another instance recovers them too); their next claim finds out");
        }
        return count;
    }

}
