package io.github.delaytask.core;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * Hands due tasks to consumers: the one claim path, for one queue as for many. Public for wiring.
 * <p>
 * Redis proposes task ids; the database decides. A claim in Redis puts ids in flight under a lease; each one then
 * has to win a version-checked claim in the database, which is what makes a cancel and a dispatch of the same task
 * race to exactly one winner, and what drops ids Redis still had of finished tasks. A task is acknowledged in Redis
 * only after the database says it is finished ({@link Outcomes}), so a crash in between never loses it: its lease
 * runs out and it is delivered again.
 * <p>
 * While Redis does not answer a queue's claims, the database proposes its due tasks instead ({@link
 * DatabaseDispatch}), through the same version-checked claim.
 */
public final class Claims {

    private static final Log logger = LogFactory.getLog(Claims.class);

    /** When a database claim lost to a concurrent change, look at the task again this soon. */
    static final long RECHECK_MILLIS = 1000;

    /** Shortest lease accepted: a claim's round trips and a handler's start must fit well within it. */
    public static final Duration MIN_LEASE = Duration.ofSeconds(1);

    private final TaskStore store;

    private final TaskQueues queues;

    private final Duration lease;

    private final Clock clock;

    private final TaskEvents events;

    private final DueSignals signals;

    private final Pauses pauses;

    private final ConsumedQueues consumed;

    private final MissedIds missed;

    private final DatabaseDispatch database;

    private final RedisLosses losses;

    /** How long a queue's claim may go unanswered before the database dispatches the queue. */
    private final long claimTimeoutMillis;

    /**
     * @param clock the clock of execute times: the Redis server's, which decides when tasks are due
     * @param events hears of redeliveries
     */
    public Claims(TaskStore store, TaskQueues queues, Duration lease, Clock clock, TaskEvents events,
            DueSignals signals, Pauses pauses, ConsumedQueues consumed) {
        this(store, queues, lease, clock, events, signals, pauses, consumed, Duration.ZERO);
    }

    /**
     * @param clock the clock of execute times: the Redis server's, which decides when tasks are due
     * @param events hears of redeliveries
     * @param databasePollInterval how often a queue whose Redis does not answer its claims is claimed from in the
     * database instead; zero for never
     */
    public Claims(TaskStore store, TaskQueues queues, Duration lease, Clock clock, TaskEvents events,
            DueSignals signals, Pauses pauses, ConsumedQueues consumed, Duration databasePollInterval) {
        this(store, queues, lease, clock, events, signals, pauses, consumed, databasePollInterval,
                Duration.ofMillis(Long.MAX_VALUE));
    }

    /**
     * @param clock the clock of execute times: the Redis server's, which decides when tasks are due
     * @param events hears of redeliveries
     * @param databasePollInterval how often a queue whose Redis does not answer its claims is claimed from in the
     * database instead; zero for never
     * @param claimTimeout how long a queue's claim may go unanswered ({@link TaskQueues.ClaimNotAnswered}) before the
     * database dispatches the queue, unless it has a cluster-wide limit; a claim that failed has its queue dispatched
     * from the database at once. A probe of the queue answered later than this does not bring it back to Redis.
     */
    public Claims(TaskStore store, TaskQueues queues, Duration lease, Clock clock, TaskEvents events,
            DueSignals signals, Pauses pauses, ConsumedQueues consumed, Duration databasePollInterval,
            Duration claimTimeout) {
        this(store, queues, lease, clock, events, signals, pauses, consumed, databasePollInterval, claimTimeout, false);
    }

    private Claims(TaskStore store, TaskQueues queues, Duration lease, Clock clock, TaskEvents events,
            DueSignals signals, Pauses pauses, ConsumedQueues consumed, Duration databasePollInterval,
            Duration claimTimeout, boolean databaseOnly) {
        Assert.isTrue(lease.compareTo(MIN_LEASE) >= 0, () -> "delay-task.lease (" + lease + ") must be at least "
                + MIN_LEASE + ": a shorter lease can run out before a claimed task's handler starts");
        this.store = store;
        this.queues = queues;
        this.lease = lease;
        this.clock = clock;
        this.events = events;
        this.signals = signals;
        this.pauses = pauses;
        this.consumed = consumed;
        this.missed = new MissedIds(store, queues, signals);
        this.losses = new RedisLosses(store, queues, signals);
        this.claimTimeoutMillis = claimTimeout.toMillis();
        this.database = new DatabaseDispatch(store, this::moveDue, pauses, signals, databasePollInterval,
                this.claimTimeoutMillis, clock, System::nanoTime, databaseOnly);
    }

    /**
     * Claims without Redis ({@code delay-task.redis.enabled=false}): the database dispatches every queue, at the
     * poll interval's precision, through the same version-checked claim.
     * @param queues the queues' port, which holds nothing ({@link TaskQueues#none})
     * @param clock the clock of execute times: the database's
     * @param pollInterval how often a queue with nothing due is claimed from again, at most
     */
    public static Claims databaseOnly(TaskStore store, TaskQueues queues, Duration lease, Clock clock,
            TaskEvents events, DueSignals signals, Pauses pauses, ConsumedQueues consumed, Duration pollInterval) {
        Assert.isTrue(pollInterval.toMillis() > 0, "the database's poll interval must be at least 1ms");
        return new Claims(store, queues, lease, clock, events, signals, pauses, consumed, pollInterval,
                Duration.ofMillis(Long.MAX_VALUE), true);
    }

    /**
     * Now, epoch ms, by the clock of execute times: the Redis server's, which decides when tasks are due, as this
     * instance measures it.
     */
    public long millis() {
        return this.clock.millis();
    }

    /**
     * Claim up to {@code max} due tasks of a queue: {@link #claimAll} for one queue. A claim Redis has not answered yet
     * takes nothing: a later claim takes its answer.
     * @return the tasks won, each held under a lease until its outcome is recorded
     * @throws RuntimeException what the queue's claim in Redis failed with
     */
    public Batch claim(QueueId queue, int max) {
        Batches batches = claimAll(Map.of(queue, max));
        RuntimeException failed = batches.failed().get(queue);
        if (failed instanceof TaskQueues.ClaimNotAnswered) {
            return new Batch(List.of(), 0, -1, false);
        }
        if (failed != null) {
            throw failed;
        }
        return batches.batches().get(queue);
    }

    /**
     * Claim due tasks of many queues at once: their Redis claims in one pipeline, then every id they handed out in
     * one database statement, so that a round over many queues costs what a claim of one does.
     * @param counts how many tasks to claim from each queue
     * @return the tasks won in each queue, and the queues whose claim failed in Redis
     */
    public Batches claimAll(Map<QueueId, Integer> counts) {
        this.consumed.consumes(counts.keySet());
        Map<QueueId, Integer> fromDatabase = this.database.own(counts);
        if (fromDatabase.isEmpty()) {
            return withDatabase(claimInRedis(counts), fromDatabase);
        }
        Map<QueueId, Integer> viaRedis = new HashMap<>(counts);
        viaRedis.keySet().removeAll(fromDatabase.keySet());
        return withDatabase(claimInRedis(viaRedis), fromDatabase);
    }

    /**
     * Add the claims of the queues whose Redis does not answer their claims to what Redis gave; a queue whose claim
     * just failed in Redis is claimed from the database from the next round on.
     */
    private Batches withDatabase(Batches fromRedis, Map<QueueId, Integer> own) {
        Map<QueueId, Batch> takenOver = new HashMap<>();
        fromRedis.failed().forEach((queue, error) -> {
            if (lateOnly(queue, error)) {
                return;
            }
            // the loss too, as a claim that went unanswered just now may have been only late a moment before
            this.losses.failed(List.of(queue));
            Batch none = this.database.takeOver(queue);
            if (none != null) {
                takenOver.put(queue, none);
            }
        });
        if (own.isEmpty() && takenOver.isEmpty()) {
            return fromRedis;
        }
        Map<QueueId, Batch> batches = new HashMap<>(fromRedis.batches());
        batches.putAll(takenOver);
        Map<QueueId, RuntimeException> failed = new HashMap<>(fromRedis.failed());
        failed.keySet().removeAll(takenOver.keySet());
        if (!own.isEmpty()) {
            try {
                long now = this.clock.millis();
                batches.putAll(this.database.claim(own, now, now + this.lease.toMillis()));
            }
            catch (RuntimeException ex) {
                own.keySet().forEach((queue) -> failed.put(queue, ex));
            }
        }
        return new Batches(batches, failed);
    }

    /**
     * Whether a queue's claim is only late: its answer comes in a later round, and is no sign of a Redis that does not
     * answer until it has waited the claim timeout; a queue with a cluster-wide limit waits for its answer, which only
     * Redis can give.
     */
    private boolean lateOnly(QueueId queue, RuntimeException error) {
        return !failedOrLongUnanswered(error) || this.database.isLimited(queue);
    }

    /** Whether a queue's claim failed, or went unanswered for the claim timeout: either may have lost data. */
    private boolean failedOrLongUnanswered(RuntimeException error) {
        return !(error instanceof TaskQueues.ClaimNotAnswered late)
                || late.unansweredMillis() >= this.claimTimeoutMillis;
    }

    private Batches claimInRedis(Map<QueueId, Integer> counts) {
        if (counts.isEmpty()) {
            return new Batches(Map.of(), Map.of());
        }
        Set<QueueId> timed = this.losses.unreachableAmong(counts.keySet());
        Map<QueueId, Long> pauses = new HashMap<>();
        if (this.pauses.anyChanges()) {
            counts.keySet().forEach((queue) -> pauses.put(queue, this.pauses.changes(queue)));
        }
        TaskQueues.Claims claims;
        try {
            claims = this.queues.claimAll(counts, this.lease, timed);
        }
        catch (RuntimeException ex) {
            // the whole round failed (no connection): its queues may have lost data when they answer again
            this.losses.failed(counts.keySet());
            if (!this.database.enabled()) {
                throw ex;
            }
            Map<QueueId, RuntimeException> failed = new HashMap<>();
            counts.keySet().forEach((queue) -> failed.put(queue, ex));
            return new Batches(Map.of(), failed);
        }
        claims.claimed()
            .forEach((queue, claim) -> this.pauses.found(queue, claim.paused(), pauses.getOrDefault(queue, 0L)));
        claims.failed().forEach((queue, error) -> {
            // a claim only late is no sign of lost data; one that failed, or went unanswered for the claim timeout
            // (a queue with a cluster-wide limit too, which is not handed to the database), may be, once its queue
            // answers again
            if (failedOrLongUnanswered(error)) {
                this.losses.failed(List.of(queue));
            }
        });
        List<Long> ids = new ArrayList<>();
        Map<QueueId, List<Long>> handedOut = new HashMap<>();
        long now = Long.MAX_VALUE;
        for (Map.Entry<QueueId, Claim> entry : claims.claimed().entrySet()) {
            QueueId queue = entry.getKey();
            Claim claim = entry.getValue();
            if (claims.late().contains(queue)) {
                // an answer older than the failure that may have lost data: the next claim, timed, tells
                this.losses.claimedLate(queue, claim);
            }
            else {
                this.losses.claimed(queue, claim);
            }
            if (claim.redelivered() > 0) {
                this.events.redelivered(queue, claim.redelivered());
            }
            if (!claim.taskIds().isEmpty()) {
                ids.addAll(claim.taskIds());
                handedOut.put(queue, claim.taskIds());
                // on a Cluster the servers' clocks differ a little: the earliest neither takes a task before it is due
                // nor gives a lease longer than asked. A late answer's time is an earlier round's: its tasks were due
                // then, and the database leases them from now, later than Redis does, which only puts off another
                // instance that finds them in Redis first
                if (!claims.late().contains(queue)) {
                    now = Math.min(now, claim.redisTime());
                }
            }
        }
        if (now == Long.MAX_VALUE) {
            now = this.clock.millis();
        }
        Map<QueueId, List<StoredTask>> won = new HashMap<>();
        if (!ids.isEmpty()) {
            Map<QueueId, Set<Long>> handedOutIds = new HashMap<>();
            handedOut.forEach((queue, taskIds) -> handedOutIds.put(queue, new HashSet<>(taskIds)));
            for (StoredTask task : claimInDatabase(handedOut, ids, now)) {
                Set<Long> ofItsQueue = handedOutIds.get(task.queue());
                if ((ofItsQueue != null && ofItsQueue.contains(task.taskId())) || this.missed.stray(task)) {
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
                this.missed.settle(queue, claim.taskIds(), tasks, now);
            }
            batches.put(queue, new Batch(tasks, claim.taskIds().size(), this.missed.nextDue(queue, claim),
                    claim.paused() && claim.taskIds().isEmpty()));
        }
        this.losses.releaseOrphans(claims.claimed());
        return new Batches(batches, claims.failed());
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
                this.signals.scheduled(queue, dueAt);
                due.put(queue, dueAt);
            });
            // another instance, whose database may answer, need not wait for this one's next try
            this.signals.announce(due);
        }
        catch (RuntimeException ex) {
            // Redis failing too: the ids wait in flight until their lease runs out, and are due then
            logger.debug("Could not hand back the ids of a claim that failed in the database", ex);
        }
    }

    /**
     * Hand out no more than {@code limit} tasks of the queue at once, across every instance: a listener's
     * cluster-wide concurrency ({@link TaskQueues#limitInFlight}).
     * @param limit the most tasks in flight; 0 for no such limit
     */
    public void limitInFlight(QueueId queue, int limit) {
        refuseWithoutRedis(limit, queue, "clusterConcurrency");
        this.queues.limitInFlight(queue, limit);
        if (limit > 0) {
            this.database.limited(queue);
        }
    }

    /**
     * Hand out no more than {@code permits} tasks of the queue within any {@code period}, across every instance: a
     * listener's cluster-wide rate ({@link TaskQueues#limitRate}).
     */
    public void limitRate(QueueId queue, int permits, java.time.Duration period) {
        refuseWithoutRedis(permits, queue, "clusterRate");
        this.queues.limitRate(queue, permits, period);
        if (permits > 0) {
            this.database.limited(queue);
        }
    }

    /** Cluster-wide limits are counted in Redis, which the database's dispatch has no stand-in for. */
    private void refuseWithoutRedis(int limit, QueueId queue, String attribute) {
        if (limit > 0 && this.database.everyQueue()) {
            throw new IllegalStateException("The listener of queue " + queue + " sets " + attribute + ", a limit "
                    + "across every instance, which delay-task keeps in Redis; without Redis "
                    + "(delay-task.redis.enabled=false, or no Redis connection) use concurrency, a limit per "
                    + "instance, or give delay-task Redis");
        }
    }

    /** Whether the database dispatches every queue, there being no Redis. */
    public boolean databaseOnly() {
        return this.database.everyQueue();
    }

    /**
     * The queues this instance claims from the database, because Redis did not answer their claims, until it answers
     * again; empty while Redis answers, and without Redis, where the database dispatches every queue.
     */
    public Set<QueueId> dispatchedFromDatabase() {
        return this.database.queues();
    }

    public void addLossListener(LossListener listener) {
        this.losses.addListener(listener);
    }

    public void removeLossListener(LossListener listener) {
        this.losses.removeListener(listener);
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
     * What a claim over many queues won.
     * @param batches the tasks won in each queue whose Redis claim ran
     * @param failed the error of each queue whose Redis claim did not run
     */
    public record Batches(Map<QueueId, Batch> batches, Map<QueueId, RuntimeException> failed) {
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
