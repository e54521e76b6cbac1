package io.github.delaytask.listener;

import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delaytask.RetryLaterException;
import io.github.delaytask.core.RetryPolicy;
import io.github.delaytask.core.TaskBroker;
import io.github.delaytask.core.TaskEvents;
import io.github.delaytask.observation.TaskObservations;
import io.github.delaytask.redis.QueueId;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The poll loop of one listener: claims due tasks of its queue as threads are free and hands them to the workers.
 * It sleeps until the queue's next task is due, or at most the poll interval (tasks added by other instances),
 * and wakes early when this instance schedules a task due sooner. It logs any failure and keeps running.
 */
final class ListenerContainer implements Runnable {

    private static final Log logger = LogFactory.getLog(ListenerContainer.class);

    /**
     * Least time from the start of a poll that failed (Redis or the database unreachable) to the next, so a failing
     * poll does not spin.
     */
    private static final long ERROR_PAUSE_MILLIS = 1000;

    private final ListenerEndpoint endpoint;

    private final ListenerMethodInvoker invoker;

    private final TaskBroker broker;

    private final WorkerPool workers;

    private final ListenerSettings settings;

    private final RetryPolicy retryPolicy;

    private final Acknowledger acknowledger;

    private final TaskEvents events;

    private final TaskObservations observations;

    private final Waiter waiter = new Waiter();

    /**
     * The listener's own limit on the tasks it holds, claimed or running; null when it sets none. Taken before the
     * shared pool's permits, so that a listener at its limit holds none of them.
     */
    private final @Nullable Semaphore slots;

    /**
     * When the earliest task this instance scheduled since the last claim began is due, in nanos of the waiter's
     * clock. A claim sees every task added before it, so only later ones can cut the next sleep short; a wake-up for
     * any add would have the poller claim once per add under a stream of adds due later.
     */
    private final AtomicLong scheduledSinceClaim = new AtomicLong(Long.MAX_VALUE);

    private volatile boolean running;

    private Thread thread;

    ListenerContainer(ListenerEndpoint endpoint, ListenerMethodInvoker invoker, TaskBroker broker, WorkerPool workers,
            Acknowledger acknowledger, ListenerSettings settings, TaskEvents events, TaskObservations observations) {
        this.observations = observations;
        this.acknowledger = acknowledger;
        this.events = events;
        this.endpoint = endpoint;
        this.invoker = invoker;
        this.broker = broker;
        this.workers = workers;
        this.settings = settings;
        this.retryPolicy = endpoint.retryPolicy(settings.retryPolicy());
        this.slots = (endpoint.concurrency() > 0) ? new Semaphore(endpoint.concurrency()) : null;
    }

    QueueId queue() {
        return this.endpoint.queue();
    }

    void start() {
        this.running = true;
        QueueId queue = this.endpoint.queue();
        this.thread = new Thread(this, "delay-task-poller-" + queue.taskType() + "-" + queue.priority());
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Stop claiming; handlers already running go on. */
    void stop() {
        this.running = false;
        this.waiter.stop();
    }

    /** Wait until the poll loop has ended, up to the given time in nanos of {@link System#nanoTime()}. */
    void join(long deadlineNanos) throws InterruptedException {
        long millis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (this.thread != null && millis > 0) {
            this.thread.join(millis);
        }
    }

    /**
     * A task of this queue was scheduled here: wake up if it is due before the current sleep ends.
     * @param executeTime when it is due, epoch ms
     */
    void scheduled(long executeTime) {
        long due = this.waiter.now()
                + TimeUnit.MILLISECONDS.toNanos(Math.max(0, executeTime - System.currentTimeMillis()));
        this.scheduledSinceClaim.accumulateAndGet(due, Math::min);
        if (this.waiter.sleepsPast(due)) {
            this.waiter.wake();
        }
    }

    @Override
    public void run() {
        while (this.running) {
            long started = System.nanoTime();
            try {
                pollOnce();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            catch (Throwable ex) {
                logger.error("Polling " + this.endpoint.describe() + " failed; trying again", ex);
                // a claim that waited out the Redis command timeout has paused already: the next one then waits for
                // Redis at once, so that the first claim after a restart sees the data loss as soon as it can
                sleepQuietly(ERROR_PAUSE_MILLIS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            }
        }
    }

    private void pollOnce() throws InterruptedException {
        int room = acquireSlots();
        if (room == 0) {
            return;
        }
        int reserved = this.workers.acquire(room, this.settings.pollInterval().toMillis());
        releaseSlots(room - reserved);
        if (reserved == 0 || !this.running) {
            this.workers.release(reserved);
            releaseSlots(reserved);
            return;
        }
        // the lease runs from the claim in Redis: time spent in the claim itself (a slow database, a long GC pause)
        // counts against it
        long claimedAt = System.nanoTime();
        long lease = this.settings.lease().toNanos();
        long startBy = claimedAt + lease / 10 * 9;
        long recordBy = claimedAt + lease;
        TaskBroker.Batch batch;
        this.scheduledSinceClaim.set(Long.MAX_VALUE);
        try {
            batch = this.broker.claim(this.endpoint.queue(), reserved);
        }
        catch (RuntimeException ex) {
            this.workers.release(reserved);
            releaseSlots(reserved);
            throw ex;
        }
        this.workers.release(reserved - batch.tasks().size());
        releaseSlots(reserved - batch.tasks().size());
        for (StoredTask task : batch.tasks()) {
            this.workers.execute(task, () -> {
                try {
                    startOrGiveBack(task, startBy, recordBy);
                }
                finally {
                    releaseSlots(1);
                }
            });
        }
        if (batch.taken() < reserved) {
            long wait = this.settings.pollInterval().toMillis();
            // a paused queue may hold due work, which must not make the poller spin; a resume is seen within a poll
            if (batch.nextDueInMillis() >= 0 && !batch.paused()) {
                wait = Math.min(wait, batch.nextDueInMillis());
            }
            this.waiter.sleep(wait, this.scheduledSinceClaim::get);
        }
    }

    /**
     * Room for up to a batch under the listener's own limit, waiting up to a poll interval for the first.
     * @return how many tasks may be claimed; 0 if the listener stayed at its limit
     */
    private int acquireSlots() throws InterruptedException {
        int batch = this.settings.batchSize();
        if (this.slots == null) {
            return batch;
        }
        if (!this.slots.tryAcquire(this.settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS)) {
            return 0;
        }
        int room = 1;
        while (room < batch && this.slots.tryAcquire()) {
            room++;
        }
        return room;
    }

    private void releaseSlots(int count) {
        if (this.slots != null && count > 0) {
            this.slots.release(count);
        }
    }

    /**
     * Start no handler whose lease may have run out while it waited for a thread or for room: another consumer may
     * have the task by then. Such a task goes back at once, its attempt not counted, rather than wait for its lease.
     */
    private void startOrGiveBack(StoredTask task, long startBy, long recordBy) {
        try {
            if (this.workers.awaitRoomToStart(startBy)) {
                handle(task, recordBy);
                return;
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        try {
            this.broker.giveBack(List.of(task));
        }
        catch (Throwable ex) {
            logger.warn("Task " + task.taskId() + " did not start in time and could not be handed back; it will be "
                    + "delivered again when its lease runs out", ex);
        }
    }

    private void handle(StoredTask task, long recordBy) {
        QueueId queue = task.queue();
        this.events.handlerStarting(queue, task.executeTime());
        long start = System.nanoTime();
        Throwable failure = this.observations.observeHandler(task.taskType(), task.priority(), task.taskId(),
                task.attempt(), task.traceContext(), () -> this.invoker.invoke(task.toDelayTask()));
        this.events.handlerFinished(queue, System.nanoTime() - start, failure == null);
        boolean handedOver = false;
        try {
            if (failure == null) {
                this.acknowledger.add(task, recordBy);
                handedOver = true;
            }
            else if (this.workers.interruptedForShutdown()) {
                // cut short by the shutdown rather than failed: the task is due again at once, its attempt not counted
                this.broker.giveBack(List.of(task));
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

    /** Record a failed run, trying again while the database may come back and the lease allows. */
    private void recordFailure(StoredTask task, Throwable failure, long recordBy) throws InterruptedException {
        Backoff backoff = new Backoff();
        while (true) {
            try {
                this.broker.fail(task, failure, this.retryPolicy);
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

    private void sleepQuietly(long millis) {
        try {
            this.waiter.sleep(millis, () -> Long.MAX_VALUE);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            this.running = false;
        }
    }

}
