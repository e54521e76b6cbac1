package io.github.delaytask.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.delaytask.RetryLaterException;
import io.github.delaytask.TaskContextPropagator;
import io.github.delaytask.core.Outcomes;
import io.github.delaytask.core.Pauses;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.RetryPolicy;
import io.github.delaytask.core.TaskContexts;
import io.github.delaytask.core.TaskEvents;
import io.github.delaytask.observation.TaskObservations;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The run of one claimed task of a listener, on a handler thread: start it while its lease allows, invoke the
 * handler, and record the outcome (acknowledged in a batch, retried, dead, or handed back at shutdown).
 */
final class TaskRun {

    private static final Log logger = LogFactory.getLog(TaskRun.class);

    private final ListenerEndpoint endpoint;

    private final ListenerMethodInvoker invoker;

    private final RetryPolicy retryPolicy;

    private final Outcomes outcomes;

    private final Pauses pauses;

    private final WorkerPool workers;

    private final Acknowledger acknowledger;

    private final TaskEvents events;

    private final TaskObservations observations;

    private final TaskContexts contexts;

    private final Leases leases;

    private final Duration timeout;

    private final HandBack handBack;

    /** Runs Redis's half of a failed run, once the database has it. */
    private final Executor redisHalf;

    /**
     * @param redisHalf runs Redis's half of a failed run (its retry time, a dead task forgotten), once the database
     * has it
     */
    TaskRun(ListenerEndpoint endpoint, ListenerMethodInvoker invoker, RetryPolicy retryPolicy, Outcomes outcomes,
            Pauses pauses, WorkerPool workers, Acknowledger acknowledger, TaskEvents events,
            TaskObservations observations, TaskContexts contexts, Leases leases, Duration timeout, HandBack handBack,
            Executor redisHalf) {
        this.contexts = contexts;
        this.handBack = handBack;
        this.redisHalf = redisHalf;
        this.endpoint = endpoint;
        this.invoker = invoker;
        this.retryPolicy = retryPolicy;
        this.outcomes = outcomes;
        this.pauses = pauses;
        this.workers = workers;
        this.acknowledger = acknowledger;
        this.events = events;
        this.observations = observations;
        this.leases = leases;
        this.timeout = timeout;
    }

    /**
     * Start no handler whose lease may have run out while it waited for a thread or for room: another consumer may
     * have the task by then. Such a task goes back at once, its attempt not counted, rather than wait for its lease;
     * so does one whose queue was paused meanwhile, or whose application stops.
     * @param startBy the latest start, nanos of {@link System#nanoTime()}
     * @param recordBy when the lease runs out, nanos of {@link System#nanoTime()}
     */
    void run(StoredTask task, long startBy, long recordBy) {
        try {
            if (this.workers.awaitRoomToStart(startBy)) {
                if (!this.pauses.knownPaused(task.queue())) {
                    handle(task, recordBy);
                    return;
                }
                // its queue was paused after it was claimed: the operator meant to hold it off
                this.workers.recorded(1);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        try {
            this.handBack.tasks(List.of(task));
        }
        catch (Throwable ex) {
            logger.warn("Task " + task.taskId() + " did not start and could not be handed back; it will be "
                    + "delivered again when its lease runs out", ex);
        }
    }

    /**
     * The handler with the context its add carried: a context that cannot be restored fails the attempt rather than
     * run the handler without it (for no tenant, or a default one); one that cannot be undone after a run that
     * succeeded is logged, as the handler's work is done.
     */
    private void invoke(StoredTask task) throws Exception {
        TaskContextPropagator.Restored restored = this.contexts.restore(task.traceContext());
        try {
            this.invoker.invoke(task.toDelayTask());
        }
        finally {
            try {
                restored.close();
            }
            catch (RuntimeException ex) {
                logger.warn("Could not put the context of task " + task.taskId() + " off its handler's thread",
                        ex);
            }
        }
    }

    private void handle(StoredTask task, long claimedUntil) {
        QueueId queue = task.queue();
        this.events.handlerStarting(queue, task.executeTime());
        long start = System.nanoTime();
        Leases.Lease lease = this.leases.started(task, claimedUntil, this.timeout, this::recordTimeout);
        Throwable failure = null;
        boolean timedOut;
        try {
            failure = this.observations.observeHandler(task.taskType(), task.priority(), task.taskId(),
                    task.attempt(), TaskContexts.traceFields(task.traceContext()), () -> invoke(task));
        }
        finally {
            timedOut = this.leases.ended(lease);
        }
        // extended while the handler ran
        long recordBy = lease.recordBy();
        this.events.handlerFinished(queue, System.nanoTime() - start, failure == null && !timedOut);
        boolean handedOver = false;
        try {
            if (timedOut) {
                // recorded as a failure when it timed out; the interrupt it may still carry must not reach the next
                // task of this thread
                Thread.interrupted();
            }
            else if (this.workers.interruptedForShutdown()) {
                // cut short by the shutdown rather than failed or done, also when the handler caught the interrupt
                // and returned: the task is due again at once, its attempt not counted
                this.handBack.tasks(List.of(task));
            }
            else if (failure == null) {
                this.acknowledger.add(task, recordBy);
                handedOver = true;
            }
            else {
                if (!(failure instanceof RetryLaterException)) {
                    logger.warn("Task " + task.taskId() + " failed in " + this.endpoint.describe() + " (attempt "
                            + task.attempt() + " of " + this.retryPolicy.maxAttempts() + ")", failure);
                }
                recordFailure(task, failure, recordBy);
            }
        }
        catch (Throwable ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            logger.error("Could not record the outcome of task " + task.taskId() + "; it will be delivered again "
                    + "when its lease runs out", ex);
        }
        finally {
            if (!handedOver) {
                this.workers.recorded(1);
            }
        }
    }

    /** The handler ran past its timeout and was interrupted: the run counts as a failed attempt. */
    private void recordTimeout(StoredTask task, Duration timeout, StackTraceElement[] where) {
        TimeoutException error = new TimeoutException("The handler " + this.endpoint.describe() + " of task "
                + task.taskId() + " ran longer than its timeout of " + timeout + " and was interrupted");
        // where it was when it timed out, which the task's last error then shows
        error.setStackTrace(where);
        logger.warn("Task " + task.taskId() + " timed out in " + this.endpoint.describe() + " (attempt "
                + task.attempt() + " of " + this.retryPolicy.maxAttempts() + ")", error);
        this.outcomes.fail(task, error, this.retryPolicy, this.redisHalf);
    }

    /** Record a failed run, trying again while the database may come back and the lease allows. */
    private void recordFailure(StoredTask task, Throwable failure, long recordBy) throws InterruptedException {
        Backoff backoff = new Backoff();
        while (true) {
            try {
                this.outcomes.fail(task, failure, this.retryPolicy, this.redisHalf);
                return;
            }
            catch (RuntimeException ex) {
                long pause = backoff.nextMillis();
                if (!Backoff.mayPass(ex) || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) > recordBy) {
                    throw ex;
                }
                TimeUnit.MILLISECONDS.sleep(pause);
            }
        }
    }

}
