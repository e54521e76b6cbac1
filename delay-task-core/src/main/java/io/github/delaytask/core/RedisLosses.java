package io.github.delaytask.core;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What the claims see of queues whose Redis may have lost data: those whose claim failed, which may have lost data
 * once they answer again, and the tasks a claim whose answer came too late left in flight. Tells the loss listeners
 * ({@link Claims.LossListener}) when a queue may miss tasks the database holds.
 */
final class RedisLosses {

    private static final Log logger = LogFactory.getLog(RedisLosses.class);

    /** Most in-flight tasks of a queue looked at for those a lost claim left there, per look. */
    private static final int ORPHAN_LOOK_LIMIT = 1000;

    private final TaskStore store;

    private final TaskQueues queues;

    private final DueSignals signals;

    private final List<Claims.LossListener> listeners = new CopyOnWriteArrayList<>();

    /** Queues whose last claim failed in Redis. */
    private final Set<QueueId> unreachable = ConcurrentHashMap.newKeySet();

    /**
     * Queues whose claim failed here and answered since: a claim Redis ran after its caller gave up waiting (a stall
     * longer than the command timeout) left its tasks in flight, held by no one, which the next claim of the queue
     * looks for ({@link #releaseOrphans}).
     */
    private final Set<QueueId> orphansToLookFor = ConcurrentHashMap.newKeySet();

    RedisLosses(TaskStore store, TaskQueues queues, DueSignals signals) {
        this.store = store;
        this.queues = queues;
        this.signals = signals;
    }

    void addListener(Claims.LossListener listener) {
        this.listeners.add(listener);
    }

    void removeListener(Claims.LossListener listener) {
        this.listeners.remove(listener);
    }

    /** The queues among those whose claim failed last: their claims read the server's time even when they hold none. */
    Set<QueueId> unreachableAmong(Collection<QueueId> queues) {
        Set<QueueId> among = new HashSet<>();
        if (!this.unreachable.isEmpty()) {
            queues.stream().filter(this.unreachable::contains).forEach(among::add);
        }
        return among;
    }

    /** The claims of the queues failed in Redis: they may have lost data when they answer again. */
    void failed(Collection<QueueId> queues) {
        this.unreachable.addAll(queues);
    }

    /**
     * A queue's claim succeeded: tell the loss listeners when its data may be lost, as its marker is gone (Redis lost
     * everything), or the claim succeeds after one that failed (Redis may have restarted from an older snapshot, or
     * failed over to a replica that missed the last writes, and kept the marker).
     */
    void claimed(QueueId queue, Claim claim) {
        boolean back = !this.unreachable.isEmpty() && this.unreachable.remove(queue);
        if (back) {
            this.orphansToLookFor.add(queue);
        }
        if (back || !claim.loaded()) {
            for (Claims.LossListener listener : this.listeners) {
                listener.queueLost(queue, claim.redisTime());
            }
        }
    }

    /**
     * A queue's claim of an earlier round answered late: only a missing marker it saw says the queue lost data. It
     * does not say the queue answers again after a failure, as it was sent before that failure was counted, and its
     * time may be none ({@code -1}, a claim that did not read the server's time): the next claim, which reads it,
     * tells.
     */
    void claimedLate(QueueId queue, Claim claim) {
        if (!claim.loaded() && claim.redisTime() >= 0) {
            for (Claims.LossListener listener : this.listeners) {
                listener.queueLost(queue, claim.redisTime());
            }
        }
    }

    /**
     * After the database claimed what the queues' claims handed out (until then their own tasks are in flight and
     * leased nowhere): make due again what a lost claim of a queue back from a failure left in flight.
     */
    void releaseOrphans(Map<QueueId, Claim> claimed) {
        if (this.orphansToLookFor.isEmpty()) {
            return;
        }
        claimed.forEach((queue, claim) -> {
            if (claim.redisTime() >= 0 && this.orphansToLookFor.contains(queue)) {
                releaseOrphans(queue, claim.redisTime());
            }
        });
    }

    /**
     * Make due again the tasks a lost claim left in flight: those the database leases to no one. A task some claim
     * is taking meanwhile (in flight, not yet leased in the database) may be among them; the database's claim fences
     * it, so the worst is a claim that finds it leased and puts it off. Never throws: what is not released waits for
     * its lease to run out, as it would have.
     */
    private void releaseOrphans(QueueId queue, long now) {
        try {
            Map<Long, Long> inFlight = this.queues.inFlightAfter(queue, now, ORPHAN_LOOK_LIMIT);
            Map<Long, long[]> orphans = new LinkedHashMap<>();
            if (!inFlight.isEmpty()) {
                for (StoredTask task : this.store.findLive(inFlight.keySet())) {
                    Long deadline = inFlight.get(task.taskId());
                    if (deadline != null && task.queue().equals(queue) && !task.leasedAt(now)) {
                        orphans.put(task.taskId(), new long[] { deadline, Math.max(now, task.executeTime()) });
                    }
                }
            }
            long released = this.queues.releaseOrphans(queue, orphans);
            this.orphansToLookFor.remove(queue);
            if (released > 0) {
                long earliest = orphans.values().stream().mapToLong((times) -> times[1]).min().orElse(now);
                logger.warn("Made " + released + " task(s) of queue " + queue + " due again that a claim whose answer "
                        + "Redis did not give in time had taken; they would have waited for their lease to run out");
                this.signals.scheduledEverywhere(queue, earliest);
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Could not look for the tasks a lost claim of " + queue + " left in flight; trying again at "
                    + "its next claim", ex);
        }
    }

}
