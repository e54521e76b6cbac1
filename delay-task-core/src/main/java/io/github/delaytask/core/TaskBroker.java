package io.github.delaytask.core;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delaytask.RetryLaterException;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.redis.Claim;
import io.github.delaytask.redis.QueueId;
import io.github.delaytask.redis.TaskQueues;
import io.github.delaytask.redis.WakeUps;
import io.github.delaytask.store.Finishes;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.util.Assert;

/**
 * Hands due tasks to consumers and records what became of them. Public for wiring.
 * <p>
 * Redis proposes task ids; the database decides. A claim in Redis puts ids in flight under a lease; each one then
 * has to win a version-checked claim in the database, which is what makes a cancel and a dispatch of the same task
 * race to exactly one winner, and what drops ids Redis still had of finished tasks. A task is acknowledged in Redis
 * only after the database says it is finished, so a crash in between never loses it: its lease runs out and it is
 * delivered again.
 */
public class TaskBroker {

    private static final Log logger = LogFactory.getLog(TaskBroker.class);

    /** When a database claim lost to a concurrent change, look at the task again this soon. */
    private static final long RECHECK_MILLIS = 1000;

    /** The longest the death of a task waits for Redis to forget its run before its listeners hear of it. */
    private static final long FORGET_BEFORE_DEATH_MILLIS = 100;

    /** Covers how far this instance's reading of Redis's clock may lag (a round trip) when Redis forgets a dead run. */
    private static final long FORGET_MARGIN_MILLIS = 50;

    /** How long a task of another application waits before this instance may claim it again. */
    private static final long FOREIGN_TASK_PAUSE_MILLIS = 1000;

    /** Most in-flight tasks of a queue looked at for those a lost claim left there, per look. */
    private static final int ORPHAN_LOOK_LIMIT = 1000;

    /**
     * How much later than the owner this instance looks at a queue whose next task is another application's it put
     * off: the owner hears of it through a wake-up on its own reading of Redis's clock, a millisecond or more behind
     * the claim's answer this instance's look comes from, and would lose the race every time.
     */
    static final long FOREIGN_TASK_HEAD_START_MILLIS = 100;

    private final TaskStore store;

    private final TaskQueues queues;

    private final Duration lease;

    private final Clock clock;

    private final List<ScheduleListener> scheduleListeners = new CopyOnWriteArrayList<>();

    private final List<LossListener> lossListeners = new CopyOnWriteArrayList<>();

    /** Every queue this instance has claimed from: those a recovery should mark loaded when Redis loses its data. */
    private final Set<QueueId> consumedQueues = ConcurrentHashMap.newKeySet();

    /** Queues a dispatcher of this instance claims from, whatever their tasks. */
    private final Set<QueueId> listenedQueues = ConcurrentHashMap.newKeySet();

    /** Queues whose last claim failed in Redis. */
    private final Set<QueueId> unreachableQueues = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean sharedKeysReported = new AtomicBoolean();

    /**
     * Queues whose claim failed here and answered since: a claim Redis ran after its caller gave up waiting (a stall
     * longer than the command timeout) left its tasks in flight, held by no one, which the next claim of the queue
     * looks for ({@link #releaseOrphans}).
     */
    private final Set<QueueId> orphansToLookFor = ConcurrentHashMap.newKeySet();

    /** When the tasks of another application this instance put off are due again, by queue (Redis time). */
    private final Map<QueueId, NavigableSet<Long>> foreignDue = new ConcurrentHashMap<>();

    /**
     * Queues this instance knows to be paused: paused here, or found paused by a claim here, until resumed here or
     * found claimable by a claim. Their tasks claimed ahead of a free thread go back rather than start.
     */
    private final Set<QueueId> pausedQueues = ConcurrentHashMap.newKeySet();

    /**
     * Counts the pauses and resumes of each queue made here, under {@link #pausedQueues}'s lock: a claim that began
     * before one says nothing of the queue after it.
     */
    private final Map<QueueId, Long> pauseChanges = new ConcurrentHashMap<>();

    private final TaskEvents events;

    private final @Nullable WakeUps wakeUps;

    /** Shortest lease accepted: a claim's round trips and a handler's start must fit well within it. */
    public static final Duration MIN_LEASE = Duration.ofSeconds(1);

    public TaskBroker(TaskStore store, TaskQueues queues, Duration lease, Clock clock, TaskEvents events) {
        this(store, queues, lease, clock, events, null);
    }

    /**
     * @param wakeUps the wake-ups that tell other instances of tasks scheduled here and this instance's listeners of
     * tasks scheduled elsewhere; null for none
     */
    public TaskBroker(TaskStore store, TaskQueues queues, Duration lease, Clock clock, TaskEvents events,
            @Nullable WakeUps wakeUps) {
        Assert.isTrue(lease.compareTo(MIN_LEASE) >= 0, () -> "delay-task.lease (" + lease + ") must be at least "
                + MIN_LEASE + ": a shorter lease can run out before a claimed task's handler starts");
        this.store = store;
        this.queues = queues;
        this.lease = lease;
        this.clock = clock;
        this.events = events;
        this.wakeUps = wakeUps;
    }

    /**
     * Now, epoch ms, by the clock of execute times: the Redis server's, which decides when tasks are due, as this
     * instance measures it.
     */
    public long millis() {
        return this.clock.millis();
    }

    /**
     * Claim up to {@code max} due tasks of a queue.
     * @return the tasks won, each held under a lease until completed or failed
     */
    public Batch claim(QueueId queue, int max) {
        this.consumedQueues.add(queue);
        long pauses = pauseChanges(queue);
        Claim claim = claimInRedis(queue, max);
        notePaused(queue, claim.paused(), pauses);
        if (claim.redelivered() > 0) {
            this.events.redelivered(queue, claim.redelivered());
        }
        if (claim.taskIds().isEmpty()) {
            return new Batch(List.of(), 0, nextDue(queue, claim), claim.paused());
        }
        long now = claim.redisTime();
        List<StoredTask> won = claimInDatabase(Map.of(queue, claim.taskIds()), claim.taskIds(), now).stream()
            .filter((task) -> task.queue().equals(queue) || stray(task))
            .toList();
        if (won.size() < claim.taskIds().size()) {
            settleMissed(queue, claim.taskIds(), won, now);
        }
        return new Batch(won, claim.taskIds().size(), nextDue(queue, claim), false);
    }

    /**
     * Claim due tasks of many queues at once: their Redis claims in one pipeline, then every id they handed out in
     * one database statement, so that a round over many queues costs what a claim of one does.
     * @param counts how many tasks to claim from each queue
     * @return the tasks won in each queue, and the queues whose claim failed in Redis
     */
    public Batches claimAll(Map<QueueId, Integer> counts) {
        this.consumedQueues.addAll(counts.keySet());
        Set<QueueId> timed = new HashSet<>();
        if (!this.unreachableQueues.isEmpty()) {
            counts.keySet().stream().filter(this.unreachableQueues::contains).forEach(timed::add);
        }
        Map<QueueId, Long> pauses = new HashMap<>();
        if (!this.pauseChanges.isEmpty()) {
            counts.keySet().forEach((queue) -> pauses.put(queue, pauseChanges(queue)));
        }
        TaskQueues.Claims claims = this.queues.claimAll(counts, this.lease, timed);
        claims.claimed()
            .forEach((queue, claim) -> notePaused(queue, claim.paused(), pauses.getOrDefault(queue, 0L)));
        claims.failed().forEach((queue, error) -> {
            // a claim only late is no sign of lost data; one that failed may be, once its queue answers again
            if (!(error instanceof TaskQueues.ClaimNotAnswered)) {
                this.unreachableQueues.add(queue);
            }
        });
        List<Long> ids = new ArrayList<>();
        Map<QueueId, List<Long>> handedOut = new HashMap<>();
        long now = Long.MAX_VALUE;
        for (Map.Entry<QueueId, Claim> entry : claims.claimed().entrySet()) {
            QueueId queue = entry.getKey();
            Claim claim = entry.getValue();
            reportLoss(queue, claim);
            if (claim.redelivered() > 0) {
                this.events.redelivered(queue, claim.redelivered());
            }
            if (!claim.taskIds().isEmpty()) {
                ids.addAll(claim.taskIds());
                handedOut.put(queue, claim.taskIds());
                // on a Cluster the servers' clocks differ a little: the earliest neither takes a task before it is due
                // nor gives a lease longer than asked
                now = Math.min(now, claim.redisTime());
            }
        }
        Map<QueueId, List<StoredTask>> won = new HashMap<>();
        if (!ids.isEmpty()) {
            Map<QueueId, Set<Long>> handedOutIds = new HashMap<>();
            handedOut.forEach((queue, taskIds) -> handedOutIds.put(queue, new HashSet<>(taskIds)));
            for (StoredTask task : claimInDatabase(handedOut, ids, now)) {
                Set<Long> ofItsQueue = handedOutIds.get(task.queue());
                if ((ofItsQueue != null && ofItsQueue.contains(task.taskId())) || stray(task)) {
                    won.computeIfAbsent(task.queue(), (queue) -> new ArrayList<>()).add(task);
                }
            }
        }
        Map<QueueId, Batch> batches = new HashMap<>();
        for (Map.Entry<QueueId, Claim> entry : claims.claimed().entrySet()) {
            QueueId queue = entry.getKey();
            Claim claim = entry.getValue();
            List<StoredTask> tasks = won.getOrDefault(queue, List.of());
            if (tasks.size() < claim.taskIds().size()) {
                settleMissed(queue, claim.taskIds(), tasks, now);
            }
            batches.put(queue, new Batch(tasks, claim.taskIds().size(), nextDue(queue, claim),
                    claim.paused() && claim.taskIds().isEmpty()));
        }
        if (!this.orphansToLookFor.isEmpty()) {
            // after the database claim: until then this round's own tasks are in flight and leased nowhere
            claims.claimed().forEach((queue, claim) -> {
                if (claim.redisTime() >= 0 && this.orphansToLookFor.contains(queue)) {
                    releaseOrphans(queue, claim.redisTime());
                }
            });
        }
        return new Batches(batches, claims.failed());
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
                scheduled(queue, earliest);
                announce(Map.of(queue, earliest));
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Could not look for the tasks a lost claim of " + queue + " left in flight; trying again at "
                    + "its next claim", ex);
        }
    }

    /**
     * Extend the leases of running tasks in the database, one statement: what fences them. The Redis half,
     * {@link #extendLeasesInRedis}, may follow later: a claim Redis hands them to meanwhile finds them leased.
     * @return how many the database extended; the others lost their claim, or another transaction holds their rows
     */
    public int renewLeasesInDatabase(Collection<StoredTask> running) {
        // the clock of execute times, which claims compare with: Redis's, so that an instance whose own clock is
        // behind does not leave a lease as it was, and one ahead does not hold a dead instance's task longer
        return this.store.renewLeases(running, this.clock.millis() + this.lease.toMillis());
    }

    /**
     * Extend the leases of running tasks in Redis, one round trip for all their queues, so that no claim hands them
     * out again meanwhile; an id no longer in flight is left alone.
     */
    public void extendLeasesInRedis(Collection<StoredTask> running) {
        this.queues.extendLeases(byQueue(running), this.lease);
    }

    private static Map<QueueId, List<Long>> byQueue(Collection<StoredTask> tasks) {
        Map<QueueId, List<Long>> byQueue = new LinkedHashMap<>();
        for (StoredTask task : tasks) {
            byQueue.computeIfAbsent(task.queue(), (queue) -> new ArrayList<>()).add(task.taskId());
        }
        return byQueue;
    }

    /**
     * Stop claims of the queue on every instance: {@link TaskQueues#pause}. Its tasks claimed here ahead of a free
     * thread go back rather than start; so do those of another instance once its next claim of the queue finds it
     * paused.
     */
    public boolean pause(QueueId queue) {
        boolean paused = this.queues.pause(queue);
        synchronized (this.pausedQueues) {
            this.pausedQueues.add(queue);
            this.pauseChanges.merge(queue, 1L, Long::sum);
        }
        // the other instances claim from the queue at once, if they have room, and so hear of the pause before their
        // tasks claimed ahead start
        announce(Map.of(queue, this.clock.millis()));
        return paused;
    }

    /** Let the queue's tasks be claimed again: {@link TaskQueues#resume}. */
    public boolean resume(QueueId queue) {
        boolean resumed = this.queues.resume(queue);
        synchronized (this.pausedQueues) {
            this.pausedQueues.remove(queue);
            this.pauseChanges.merge(queue, 1L, Long::sum);
        }
        if (resumed) {
            // dispatchers look at a paused queue only now and then; what fell due meanwhile is due now
            long now = this.clock.millis();
            scheduled(queue, now);
            announce(Map.of(queue, now));
        }
        return resumed;
    }

    /**
     * Whether this instance knows the queue to be paused, without asking Redis: a claimed task of the queue that has
     * not started should go back.
     */
    public boolean knownPaused(QueueId queue) {
        return !this.pausedQueues.isEmpty() && this.pausedQueues.contains(queue);
    }

    /**
     * What a claim found of the queue's pause, unless a pause or resume made here since it began says otherwise.
     * @param pauses the queue's {@link #pauseChanges} when the claim began
     */
    private void notePaused(QueueId queue, boolean paused, long pauses) {
        if (paused == knownPaused(queue)) {
            return;
        }
        synchronized (this.pausedQueues) {
            if (pauseChanges(queue) == pauses) {
                if (paused) {
                    this.pausedQueues.add(queue);
                }
                else {
                    this.pausedQueues.remove(queue);
                }
            }
        }
    }

    private long pauseChanges(QueueId queue) {
        return this.pauseChanges.isEmpty() ? 0 : this.pauseChanges.getOrDefault(queue, 0L);
    }

    /** Whether the queue is paused. */
    public boolean paused(QueueId queue) {
        return this.queues.paused(queue);
    }

    /**
     * Move a queue's due tasks, and those whose lease ran out, into its ready set, claiming none: the refresh job's
     * work for queues no dispatcher here claims from.
     * @return what Redis says of the queue
     */
    public Claim moveDue(QueueId queue) {
        Claim moved = this.queues.claim(queue, 0, Duration.ZERO);
        if (moved.redelivered() > 0) {
            this.events.redelivered(queue, moved.redelivered());
        }
        return moved;
    }

    /** Claim in Redis, and tell the loss listeners when the queue's data may be lost. */
    private Claim claimInRedis(QueueId queue, int max) {
        Claim claim;
        try {
            claim = this.queues.claim(queue, max, this.lease);
        }
        catch (RuntimeException ex) {
            this.unreachableQueues.add(queue);
            throw ex;
        }
        reportLoss(queue, claim);
        return claim;
    }

    /**
     * Tell the loss listeners when the queue's data may be lost: its marker is gone (Redis lost everything), or the
     * claim succeeds after one that failed (Redis may have restarted from an older snapshot, or failed over to a
     * replica that missed the last writes, and kept the marker).
     */
    private void reportLoss(QueueId queue, Claim claim) {
        boolean back = !this.unreachableQueues.isEmpty() && this.unreachableQueues.remove(queue);
        if (back) {
            this.orphansToLookFor.add(queue);
        }
        if (back || !claim.loaded()) {
            for (LossListener listener : this.lossListeners) {
                listener.queueLost(queue, claim.redisTime());
            }
        }
    }

    /**
     * Claim in the database the ids Redis handed out. When that fails (a database blip, a pool timeout), the ids go
     * back to Redis due in a moment rather than wait in flight for their lease to run out: the database may have
     * claimed them all the same, if only its answer was lost, and then the claim that gets them next finds them
     * leased and puts them off until their lease runs out.
     */
    private List<StoredTask> claimInDatabase(Map<QueueId, List<Long>> handedOut, List<Long> ids, long now) {
        try {
            return this.store.claimDue(ids, now, now + this.lease.toMillis());
        }
        catch (RuntimeException ex) {
            handBack(handedOut, now + RECHECK_MILLIS);
            throw ex;
        }
    }

    private void handBack(Map<QueueId, List<Long>> handedOut, long dueAt) {
        try {
            Map<QueueId, Long> due = new HashMap<>();
            handedOut.forEach((queue, taskIds) -> {
                taskIds.forEach((taskId) -> this.queues.settle(queue, taskId, dueAt));
                scheduled(queue, dueAt);
                due.put(queue, dueAt);
            });
            // another instance, whose database may answer, need not wait for this one's next try
            announce(due);
        }
        catch (RuntimeException ex) {
            // Redis failing too: the ids wait in flight until their lease runs out, and are due then
            logger.debug("Could not hand back the ids of a claim that failed in the database", ex);
        }
    }

    /**
     * A task the database gave a claim for an id that another queue handed out: another application whose keys share
     * the prefix has a task of the same id (explicit ids, or generators that clash). It goes back at once, as if never
     * claimed; its own queue hands it out in its time.
     * @return {@code false}: the claim does not keep it
     */
    private boolean stray(StoredTask task) {
        warnOfSharedKeys(task.queue(), task.taskId());
        try {
            putBack(unclaimAll(List.of(task)));
        }
        catch (RuntimeException ex) {
            logger.debug("Could not hand back task " + task.taskId() + ", claimed for another queue's id", ex);
        }
        return false;
    }

    /** Put the ids Redis handed out and the database did not give this claim where they belong. */
    private void settleMissed(QueueId queue, List<Long> taskIds, List<StoredTask> won, long now) {
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
                settleLocally(queue, taskId, now + RECHECK_MILLIS);
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
    private long nextDue(QueueId queue, Claim claim) {
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
        announce(Map.of(queue, ownersLook));
    }

    private void warnOfSharedKeys(QueueId queue, long taskId) {
        if (this.sharedKeysReported.compareAndSet(false, true)) {
            logger.error("Queue " + queue + " holds task id " + taskId + ", which is no task of that queue in this "
                    + "application's database: another application uses the same Redis keys (delay-task.redis.key-prefix '"
                    + this.queues.keyPrefix() + "'). Such tasks are left to it, but each application claims the "
                    + "other's and the reload and refresh jobs share a lock: give each application a prefix of its "
                    + "own, or leave the property unset, which makes the keys start with the id of the database's "
                    + "task store");
        }
    }

    /**
     * Record that a claimed task ran.
     * @return {@code false} if its lease had run out and another consumer took it over
     */
    public boolean complete(StoredTask claimed) {
        Finishes finishes = this.store.finishAllExecuted(List.of(claimed));
        if (!finishes.held().isEmpty()) {
            return completeHeld(claimed);
        }
        acknowledge(finishes.finished(), 1);
        return !finishes.finished().isEmpty();
    }

    /**
     * Record in the database that claimed tasks ran, one transaction for all of them, leaving Redis as it is: the
     * caller has Redis {@link #forget} the finished ones, when Redis answers, so that a Redis that stalls holds up no
     * outcome. Tasks whose rows another transaction holds are not waited for: no one caller's open transaction holds
     * up the others. A task the database recorded is never
     * run again, whatever Redis still holds of it: a claim that hands its id out drops it.
     * @return the tasks recorded, and those whose rows another transaction holds, not recorded yet (see
     * {@link #completeHeld}); the others had lost their lease to another consumer
     */
    public Recorded recordAll(List<StoredTask> claimed) {
        Finishes finishes = this.store.finishAllExecuted(claimed);
        recorded(finishes.finished(), claimed.size() - finishes.held().size());
        return new Recorded(finishes.finished(), finishes.held());
    }

    /**
     * Forget in Redis tasks the database recorded as finished: a removal from each queue's in-flight set, all sent
     * together.
     */
    public void forget(Collection<StoredTask> finished) {
        if (!finished.isEmpty()) {
            this.queues.acknowledgeAll(byQueue(finished));
        }
    }

    /**
     * Record that a claimed task ran, waiting for the transaction that holds its row, as long as the database's lock
     * wait allows: its task is not claimed meanwhile, as claims pass over rows another transaction holds.
     * @return {@code false} if it had lost its lease to another consumer
     */
    public boolean completeHeld(StoredTask claimed) {
        boolean finished = this.store.finish(claimed, TaskStatus.EXECUTED, null);
        acknowledge(finished ? List.of(claimed) : List.of(), 1);
        return finished;
    }

    private void acknowledge(List<StoredTask> finished, int asked) {
        recorded(finished, asked);
        forgetQuietly(finished);
    }

    /** Count the tasks recorded as executed, and warn of those that had lost their lease. */
    private void recorded(List<StoredTask> finished, int asked) {
        if (finished.size() < asked) {
            logger.warn((asked - finished.size()) + " task(s) ran after their lease ran out; another consumer "
                    + "took them over, so they may run twice. Raise delay-task.lease above the longest handler time.");
        }
        byQueue(finished).forEach((queue, ids) -> this.events.completed(queue, TaskEvents.Outcome.EXECUTED,
                ids.size()));
    }

    private void forgetQuietly(List<StoredTask> finished) {
        try {
            forget(finished);
        }
        catch (RuntimeException ex) {
            // the database has recorded them, which is what counts: an id left in flight is dropped when its lease
            // runs out and it is claimed again, as the database says it is finished
            logger.debug("Could not forget " + finished.size() + " finished task(s) in Redis", ex);
        }
    }

    /**
     * Hand back in the database claimed tasks whose handlers never started (the application is stopping, their queue
     * was paused, or they waited too long for a thread): a claim takes them at once, their attempt not counted,
     * whatever Redis says of their lease; {@link #putBack} then makes them due in Redis.
     * @return the tasks handed back; the others had lost their claim meanwhile
     */
    public List<StoredTask> unclaimAll(List<StoredTask> claimed) {
        List<StoredTask> unclaimed = new ArrayList<>(claimed.size());
        for (StoredTask task : claimed) {
            if (this.store.unclaim(task)) {
                unclaimed.add(task);
            }
        }
        return unclaimed;
    }

    /** Make tasks handed back in the database due again in Redis, and tell the consumers here. */
    public void putBack(List<StoredTask> unclaimed) {
        for (StoredTask task : unclaimed) {
            deferLocally(task.queue(), task.taskId(), task.executeTime());
        }
    }

    /**
     * Record that the handler of a claimed task failed: it runs again after the policy's back-off (or the delay a
     * {@link RetryLaterException} asked for), or becomes {@link TaskStatus#DEAD} after its last attempt. Redis's half
     * (moving the id to its retry time, or forgetting a dead task) follows on the calling thread.
     */
    public void fail(StoredTask claimed, Throwable error, RetryPolicy retryPolicy) {
        fail(claimed, error, retryPolicy, this::inline);
    }

    /**
     * {@link #fail(StoredTask, Throwable, RetryPolicy)}, with Redis's half handed to {@code redisHalf} once the
     * database has the outcome, so that a Redis that stalls holds up neither the caller nor the
     * {@link io.github.delaytask.DeadTaskEvent}: until Redis hears of it, the id waits in flight and is handed out
     * when its lease runs out, and the database puts it off.
     * @param redisHalf runs what Redis is told; what it runs may throw when Redis does not answer
     */
    public void fail(StoredTask claimed, Throwable error, RetryPolicy retryPolicy, Executor redisHalf) {
        try {
            recordFailure(claimed, error, retryPolicy, ErrorText.of(error), redisHalf);
        }
        catch (DataIntegrityViolationException ex) {
            // the database refused the error text: record the outcome without it rather than leave the task to run
            // again after every lease, forever, with nothing recorded
            logger.warn("The database refused the error text of task " + claimed.taskId() + "; recording its "
                    + "failure without it", ex);
            recordFailure(claimed, error, retryPolicy, ErrorText.withoutMessage(error, ex), redisHalf);
        }
    }

    private void recordFailure(StoredTask claimed, Throwable error, RetryPolicy retryPolicy, String message,
            Executor redisHalf) {
        if (retryPolicy.allowsRetryAfter(claimed.attempt())) {
            Duration delay = (error instanceof RetryLaterException retryLater) ? retryLater.getDelay()
                    : retryPolicy.delayAfter(claimed.attempt());
            long next = this.clock.millis() + delay.toMillis();
            if (this.store.release(claimed, next, message)) {
                this.events.completed(claimed.queue(), TaskEvents.Outcome.RETRIED, 1);
                // recorded; should Redis not hear of it, it hands the id out when the lease runs out, and the
                // database puts it off
                redisHalf.execute(() -> deferLocally(claimed.queue(), claimed.taskId(), next));
            }
        }
        else {
            // read before the death is recorded: any lease this run held ends before it, even with this clock a
            // round trip behind Redis's or the run claimed a moment ago (the margin); a later run holds one that ends
            // after it, as it is claimed after a requeue, which a listener of the death makes once Redis forgot the
            // run or FORGET_BEFORE_DEATH_MILLIS later, more than the margin
            long laterRunsLease = this.clock.millis() + this.lease.toMillis() + FORGET_MARGIN_MILLIS;
            if (this.store.finish(claimed, TaskStatus.DEAD, message)) {
                this.events.completed(claimed.queue(), TaskEvents.Outcome.DEAD, 1);
                logger.error("Task " + claimed.taskId() + " failed " + claimed.attempt() + " times and is now DEAD",
                        error);
                // the listeners of the death may requeue the task at once: Redis forgets the dead run first, unless
                // it is slow to answer, which the bound then covers (for instances of one lease)
                CountDownLatch forgotten = new CountDownLatch(1);
                redisHalf.execute(() -> {
                    try {
                        this.queues.forgetRun(claimed.queue(), claimed.taskId(), laterRunsLease);
                    }
                    finally {
                        forgotten.countDown();
                    }
                });
                awaitQuietly(forgotten, FORGET_BEFORE_DEATH_MILLIS);
                this.events.died(claimed, message, error);
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch, long millis) {
        try {
            latch.await(millis, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Run Redis's half of an outcome here and now; the database has the outcome, whatever Redis answers. */
    private void inline(Runnable redisHalf) {
        try {
            redisHalf.run();
        }
        catch (RuntimeException ex) {
            logger.debug("Could not tell Redis of a recorded outcome", ex);
        }
    }

    /**
     * Make a task held here due at the given time, and tell this instance's consumers: they look at an idle queue
     * only now and then, so they must hear of it. Not announced to the others: a consumer here looks after it, and
     * the others find it at their next look if this one stops.
     */
    private void deferLocally(QueueId queue, long taskId, long executeTime) {
        this.queues.defer(queue, taskId, executeTime);
        scheduled(queue, executeTime);
    }

    /**
     * Make a task this instance's claim lost due again at the given time, unless Redis holds it due sooner: what the
     * claim read of the database may be older than a retry its handler recorded meanwhile.
     */
    private void settleLocally(QueueId queue, long taskId, long executeTime) {
        this.queues.settle(queue, taskId, executeTime);
        scheduled(queue, executeTime);
    }

    /** Tell local consumers that a task was scheduled, so that one sleeping past its execute time wakes up. */
    public void scheduled(QueueId queue, long executeTime) {
        for (ScheduleListener listener : this.scheduleListeners) {
            listener.scheduled(queue, executeTime);
        }
    }

    /**
     * Tell the other instances' consumers, through the wake-ups, of the earliest task scheduled here in each queue.
     * Never throws.
     */
    public void announce(Map<QueueId, Long> earliest) {
        if (this.wakeUps != null) {
            this.wakeUps.publish(earliest);
        }
    }

    /**
     * Tasks were brought into Redis from the database (the reload, a recovery): tell the consumers here and, through
     * the wake-ups, everywhere, of the earliest of each queue. Never throws for the wake-ups.
     */
    public void reloaded(Map<QueueId, Long> earliest) {
        earliest.forEach(this::scheduled);
        announce(earliest);
    }

    /** Hear of tasks scheduled here and, through the wake-ups, elsewhere; the first listener subscribes to them. */
    public synchronized void addScheduleListener(ScheduleListener listener) {
        this.scheduleListeners.add(listener);
        if (this.wakeUps != null && this.scheduleListeners.size() == 1) {
            this.wakeUps.listen(new WakeUps.Listener() {

                @Override
                public void scheduled(QueueId queue, long executeTime) {
                    TaskBroker.this.scheduled(queue, executeTime);
                }

                @Override
                public void subscribed() {
                    // tasks added elsewhere while this instance was not subscribed woke nobody here
                    long now = millis();
                    for (QueueId queue : listenedQueues()) {
                        TaskBroker.this.scheduled(queue, now);
                    }
                }

            });
        }
    }

    public synchronized void removeScheduleListener(ScheduleListener listener) {
        this.scheduleListeners.remove(listener);
        if (this.wakeUps != null && this.scheduleListeners.isEmpty()) {
            this.wakeUps.stopListening();
        }
    }

    public void addLossListener(LossListener listener) {
        this.lossListeners.add(listener);
    }

    public void removeLossListener(LossListener listener) {
        this.lossListeners.remove(listener);
    }

    /**
     * Queues this instance is about to claim from, such as those of its listeners: a recovery from Redis data loss
     * then marks them with the first queue that asks, rather than in a recovery of their own moments later.
     */
    public void consumes(Collection<QueueId> queues) {
        this.consumedQueues.addAll(queues);
    }

    /**
     * Queues a dispatcher here now claims from, until {@link #stopsListening}: the refresh job leaves their due
     * tasks to it.
     */
    public void listens(Collection<QueueId> queues) {
        this.listenedQueues.addAll(queues);
        consumes(queues);
    }

    public void stopsListening(Collection<QueueId> queues) {
        this.listenedQueues.removeAll(queues);
    }

    /** The queues a dispatcher here claims from. */
    public Set<QueueId> listenedQueues() {
        return Set.copyOf(this.listenedQueues);
    }

    /** Every queue this instance claims from: those of {@link #consumes} and those claimed from, by {@code poll} too. */
    public Set<QueueId> consumedQueues() {
        return Set.copyOf(this.consumedQueues);
    }

    /**
     * Tasks won by one claim.
     * @param tasks the tasks this consumer now holds
     * @param taken how many ids Redis handed out, won or not; more may be due when it is positive
     * @param nextDueInMillis ms until the queue next needs a look (its next task is due, or a lease in flight runs
     * out), or -1 when it holds neither
     * @param paused whether the queue is paused, so that nothing was claimed
     */
    public record Batch(List<StoredTask> tasks, int taken, long nextDueInMillis, boolean paused) {
    }

    /**
     * What the database made of executed tasks.
     * @param finished the tasks recorded as executed
     * @param held the tasks whose rows another transaction holds, not recorded yet
     */
    public record Recorded(List<StoredTask> finished, List<StoredTask> held) {
    }

    /**
     * What a claim over many queues won.
     * @param batches the tasks won in each queue whose Redis claim ran
     * @param failed the error of each queue whose Redis claim did not run
     */
    public record Batches(Map<QueueId, Batch> batches, Map<QueueId, RuntimeException> failed) {
    }

    /**
     * Hears of tasks scheduled by this instance and, with wake-ups, by the others.
     */
    @FunctionalInterface
    public interface ScheduleListener {

        void scheduled(QueueId queue, long executeTime);

    }

    /**
     * Hears of claims after which a queue may miss tasks the database holds: the claim found the queue's loaded
     * marker missing (Redis lost its data, or no recovery has loaded the queue since Redis started empty), or it
     * succeeded after a claim that failed. Called on the claiming thread, so it must not block.
     */
    @FunctionalInterface
    public interface LossListener {

        /**
         * @param queue the queue
         * @param redisTime the time of the claim, by the clock of the queue's Redis server, epoch ms: a recovery
         * that began at or after it on that server has brought back whatever was lost
         */
        void queueLost(QueueId queue, long redisTime);

    }

}
