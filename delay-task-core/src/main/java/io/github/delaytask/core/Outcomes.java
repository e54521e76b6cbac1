package io.github.delaytask.core;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.RetryLaterException;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.store.Finishes;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataIntegrityViolationException;

/**
 * Records what became of claimed tasks: executed, retried, dead, or handed back unstarted; and extends the leases of
 * those still running. The one policy for recording a run, whoever ran it (a listener, {@code poll}, a test's manual
 * dispatch). Public for wiring.
 * <p>
 * The database has each outcome first; Redis hears of it after, and a Redis that does not answer loses nothing: an
 * id left in flight is handed out when its lease runs out, and the database, which has the outcome, drops or puts it
 * off.
 */
public final class Outcomes {

    private static final Log logger = LogFactory.getLog(Outcomes.class);

    /** The longest the death of a task waits for Redis to forget its run before its listeners hear of it. */
    private static final long FORGET_BEFORE_DEATH_MILLIS = 100;

    /** Covers how far this instance's reading of Redis's clock may lag (a round trip) when Redis forgets a dead run. */
    private static final long FORGET_MARGIN_MILLIS = 50;

    private final TaskStore store;

    private final TaskQueues queues;

    private final Duration lease;

    private final Clock clock;

    private final TaskEvents events;

    private final DueSignals signals;

    /**
     * @param clock the clock of execute times
     * @param events hears of every outcome recorded, deaths included
     */
    public Outcomes(TaskStore store, TaskQueues queues, Duration lease, Clock clock, TaskEvents events,
            DueSignals signals) {
        this.store = store;
        this.queues = queues;
        this.lease = lease;
        this.clock = clock;
        this.events = events;
        this.signals = signals;
    }

    /**
     * Record that a claimed task ran; Redis forgets it on the calling thread.
     * @return {@code false} if its lease had run out and another consumer took it over
     */
    public boolean complete(StoredTask claimed) {
        return complete(claimed, this::inline);
    }

    /**
     * {@link #complete(StoredTask)}, with Redis's half handed to {@code redisHalf} once the database has the outcome,
     * so that a Redis that stalls holds up neither the caller nor the outcome: until Redis hears of it, the id waits
     * in flight, and the claim that hands it out when its lease runs out drops it, as the database says it finished.
     * @param redisHalf runs what Redis is told; what it runs may throw when Redis does not answer
     */
    public boolean complete(StoredTask claimed, Executor redisHalf) {
        Finishes finishes = this.store.finishAllExecuted(List.of(claimed));
        List<StoredTask> finished = finishes.finished();
        if (!finishes.held().isEmpty()) {
            finished = this.store.finish(claimed, TaskStatus.EXECUTED, null) ? List.of(claimed) : List.of();
        }
        recorded(finished, 1);
        if (!finished.isEmpty()) {
            List<StoredTask> forgotten = finished;
            redisHalf.execute(() -> forget(forgotten));
        }
        return !finished.isEmpty();
    }

    /**
     * Record in the database that claimed tasks ran, one transaction for all of them, leaving Redis as it is: the
     * caller has Redis {@link #forget} the finished ones, when Redis answers, so that a Redis that stalls holds up no
     * outcome. Tasks whose rows another transaction holds are not waited for: no one caller's open transaction holds
     * up the others. A task the database recorded is never
     * run again, whatever Redis still holds of it: a claim that hands its id out drops it.
     * @return the tasks recorded, and those whose rows another transaction holds, not recorded yet (tried again, or
     * finished by {@link TaskStore#finish}, which waits for the row); the others had lost their lease to another
     * consumer
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

    /** Count the tasks recorded as executed, and warn of those that had lost their lease. */
    private void recorded(List<StoredTask> finished, int asked) {
        if (finished.size() < asked) {
            logger.warn((asked - finished.size()) + " task(s) ran after their lease ran out; another consumer "
                    + "took them over, so they may run twice. Raise delay-task.lease above the longest handler time.");
        }
        byQueue(finished).forEach((queue, ids) -> this.events.completed(queue, TaskEvents.Outcome.EXECUTED,
                ids.size()));
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
        this.signals.scheduled(queue, executeTime);
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

    static Map<QueueId, List<Long>> byQueue(Collection<StoredTask> tasks) {
        Map<QueueId, List<Long>> byQueue = new LinkedHashMap<>();
        for (StoredTask task : tasks) {
            byQueue.computeIfAbsent(task.queue(), (queue) -> new ArrayList<>()).add(task.taskId());
        }
        return byQueue;
    }

    /**
     * What the database made of executed tasks.
     * @param finished the tasks recorded as executed
     * @param held the tasks whose rows another transaction holds, not recorded yet
     */
    public record Recorded(List<StoredTask> finished, List<StoredTask> held) {
    }

}
