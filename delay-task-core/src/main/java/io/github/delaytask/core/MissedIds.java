package io.github.delaytask.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Puts where they belong the ids a claim's Redis half handed out and its database half did not win: tasks leased or
 * rescheduled meanwhile, finished ones Redis still had, and another application's whose keys share the prefix.
 */
final class MissedIds {

    private static final Log logger = LogFactory.getLog(MissedIds.class);

    /** How long a task of another application waits before this instance may claim it again. */
    private static final long FOREIGN_TASK_PAUSE_MILLIS = 1000;

    /**
     * How much later than the owner this instance looks at a queue whose next task is another application's it put
     * off: the owner hears of it through a wake-up on its own reading of Redis's clock, a millisecond or more behind
     * the claim's answer this instance's look comes from, and would lose the race every time.
     */
    static final long FOREIGN_TASK_HEAD_START_MILLIS = 100;

    private final TaskStore store;

    private final TaskQueues queues;

    private final DueSignals signals;

    private final AtomicBoolean sharedKeysReported = new AtomicBoolean();

    /** When the tasks of another application this instance put off are due again, by queue (Redis time). */
    private final Map<QueueId, NavigableSet<Long>> foreignDue = new ConcurrentHashMap<>();

    MissedIds(TaskStore store, TaskQueues queues, DueSignals signals) {
        this.store = store;
        this.queues = queues;
        this.signals = signals;
    }

    /**
     * A task the database gave a claim for an id that another queue handed out: another application whose keys share
     * the prefix has a task of the same id (explicit ids, or generators that clash). It goes back at once, as if never
     * claimed; its own queue hands it out in its time.
     * @return {@code false}: the claim does not keep it
     */
    boolean stray(StoredTask task) {
        warnOfSharedKeys(task.queue(), task.taskId());
        try {
            if (this.store.unclaim(task)) {
                this.queues.defer(task.queue(), task.taskId(), task.executeTime());
                this.signals.scheduled(task.queue(), task.executeTime());
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Could not hand back task " + task.taskId() + ", claimed for another queue's id", ex);
        }
        return false;
    }

    /** Put the ids Redis handed out and the database did not give this claim where they belong. */
    void settle(QueueId queue, List<Long> taskIds, List<StoredTask> won, long now) {
        Set<Long> missed = new HashSet<>(taskIds);
        won.forEach((task) -> missed.remove(task.taskId()));
        Map<Long, StoredTask> live = new HashMap<>();
        this.store.findLive(missed).forEach((task) -> live.put(task.taskId(), task));
        List<Long> gone = new ArrayList<>();
        List<Long> foreign = new ArrayList<>();
        for (Long taskId : missed) {
            StoredTask task = live.get(taskId);
            if (task == null) {
                gone.add(taskId);
            }
            else if (!task.queue().equals(queue)) {
                // this store's task of that id is of another queue: the id is another application's
                warnOfSharedKeys(queue, taskId);
                foreign.add(taskId);
            }
            else if (task.leasedAt(now)) {
                settleLocally(queue, taskId, task.leaseUntil());
            }
            else if (task.executeTime() > now) {
                settleLocally(queue, taskId, task.executeTime());
            }
            else {
                // a concurrent change won: look again soon, by which time the database says what it is
                settleLocally(queue, taskId, now + Claims.RECHECK_MILLIS);
            }
        }
        if (!foreign.isEmpty()) {
            leaveToOwner(queue, foreign, now);
        }
        if (!gone.isEmpty()) {
            settleGone(queue, gone, now);
        }
    }

    /**
     * Ids of no live task: those this store knows were finished or cancelled meanwhile, and Redis only had an old
     * id; under a configured prefix, those it does not know belong to another application whose keys share the
     * prefix, and are left to it.
     */
    private void settleGone(QueueId queue, List<Long> gone, long now) {
        if (this.queues.keysOfOneStore()) {
            // keys of this store alone: an id it does not know is of a task it finished and whose history the purge
            // deleted since (Redis restored from an old snapshot), not another application's
            this.queues.acknowledgeAll(queue, gone);
            return;
        }
        Set<Long> known = this.store.findKnown(queue, gone);
        List<Long> finished = new ArrayList<>(known.size());
        List<Long> foreign = new ArrayList<>();
        for (Long taskId : gone) {
            if (known.contains(taskId)) {
                finished.add(taskId);
            }
            else {
                warnOfSharedKeys(queue, taskId);
                foreign.add(taskId);
            }
        }
        if (!foreign.isEmpty()) {
            leaveToOwner(queue, foreign, now);
        }
        if (!finished.isEmpty()) {
            this.queues.acknowledgeAll(queue, finished);
        }
    }

    /**
     * When the queue next needs a look, from a claim's answer: a little after a task of another application this
     * instance put off, so that its owner, told of it, claims it first. Two applications that each put off the
     * other's tasks otherwise took them from each other every second, for good.
     */
    long nextDue(QueueId queue, Claim claim) {
        long nextDue = claim.nextDueInMillis();
        NavigableSet<Long> foreign = this.foreignDue.get(queue);
        if (foreign == null || nextDue < 0 || claim.redisTime() < 0) {
            return nextDue;
        }
        // those due by now: their owners had their turn
        foreign.headSet(claim.redisTime(), true).clear();
        return foreign.contains(claim.redisTime() + nextDue) ? nextDue + FOREIGN_TASK_HEAD_START_MILLIS : nextDue;
    }

    /** Ids of another application's tasks: due again a moment later, for their owner to claim. */
    private void leaveToOwner(QueueId queue, List<Long> foreign, long now) {
        long ownersLook = now + FOREIGN_TASK_PAUSE_MILLIS;
        this.foreignDue.computeIfAbsent(queue, (key) -> new ConcurrentSkipListSet<>()).add(ownersLook);
        // not due again at once: this instance would claim them over and over before their owner does
        foreign.forEach((taskId) -> this.queues.defer(queue, taskId, ownersLook));
        // told to the other instances, not to this one: its own dispatcher would look first and take them again,
        // each time, while an idle owner heard of them only after its idle poll interval
        this.signals.announce(Map.of(queue, ownersLook));
    }

    private void warnOfSharedKeys(QueueId queue, long taskId) {
        if (this.sharedKeysReported.compareAndSet(false, true)) {
            logger.error("Queue " + queue + " holds task id " + taskId + ", which is no task of that queue in this "
                    + "application's database: another application uses the same Redis keys (delay-task.redis.key-prefix '"
                    + this.queues.keyPrefix() + "'). Such tasks are left to it, but each application claims the "
                    + "other's and the jobs share locks: give each application a prefix of its "
                    + "own, or leave the property unset, which makes the keys start with the id of the database's "
                    + "task store");
        }
    }

    /**
     * Make a task this instance's claim lost due again at the given time, unless Redis holds it due sooner: what the
     * claim read of the database may be older than a retry its handler recorded meanwhile.
     */
    private void settleLocally(QueueId queue, long taskId, long executeTime) {
        this.queues.settle(queue, taskId, executeTime);
        this.signals.scheduled(queue, executeTime);
    }

}
