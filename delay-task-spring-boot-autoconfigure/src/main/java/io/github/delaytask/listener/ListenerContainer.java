package io.github.delaytask.listener;

import java.util.concurrent.atomic.AtomicLong;

import io.github.delaytask.RetryLaterException;
import io.github.delaytask.core.RetryPolicy;
import io.github.delaytask.core.TaskBroker;
import io.github.delaytask.redis.QueueId;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The poll loop of one listener: claims due tasks of its queue as threads are free and hands them to the workers.
 * It sleeps until the queue's next task is due, or at most the poll interval (tasks added by other instances),
 * and wakes early when this instance schedules a task due sooner. It logs any failure and keeps running.
 */
final class ListenerContainer implements Runnable {

    private static final Log logger = LogFactory.getLog(ListenerContainer.class);

    /** Pause after an error (Redis or the database unreachable), so a failing poll does not spin. */
    private static final long ERROR_PAUSE_MILLIS = 1000;

    private final ListenerEndpoint endpoint;

    private final ListenerMethodInvoker invoker;

    private final TaskBroker broker;

    private final WorkerPool workers;

    private final ListenerSettings settings;

    private final RetryPolicy retryPolicy;

    private final Acknowledger acknowledger;

    private final Object signal = new Object();

    /**
     * The earliest execute time this instance scheduled since the last claim began. A claim sees every task added
     * before it, so only later ones can cut the next sleep short; a wake-up for any add would have the poller claim
     * once per add under a stream of adds due later.
     */
    private final AtomicLong scheduledSinceClaim = new AtomicLong(Long.MAX_VALUE);

    private volatile long sleepingUntil = Long.MAX_VALUE;

    private volatile boolean running;

    private Thread thread;

    ListenerContainer(ListenerEndpoint endpoint, ListenerMethodInvoker invoker, TaskBroker broker, WorkerPool workers,
            Acknowledger acknowledger, ListenerSettings settings) {
        this.acknowledger = acknowledger;
        this.endpoint = endpoint;
        this.invoker = invoker;
        this.broker = broker;
        this.workers = workers;
        this.settings = settings;
        this.retryPolicy = endpoint.retryPolicy(settings.retryPolicy());
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
        wake();
    }

    void join(long millis) throws InterruptedException {
        if (this.thread != null) {
            this.thread.join(millis);
        }
    }

    /** A task of this queue was scheduled here: wake up if it is due before the current sleep ends. */
    void scheduled(long executeTime) {
        this.scheduledSinceClaim.accumulateAndGet(executeTime, Math::min);
        if (executeTime < this.sleepingUntil) {
            wake();
        }
    }

    @Override
    public void run() {
        while (this.running) {
            try {
                pollOnce();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            catch (Throwable ex) {
                logger.error("Polling " + this.endpoint.describe() + " failed; trying again", ex);
                sleepQuietly(ERROR_PAUSE_MILLIS);
            }
        }
    }

    private void pollOnce() throws InterruptedException {
        int reserved = this.workers.acquire(this.settings.batchSize(), this.settings.pollInterval().toMillis());
        if (reserved == 0 || !this.running) {
            this.workers.release(reserved);
            return;
        }
        // the lease runs from the claim in Redis: time spent in the claim itself (a slow database, a long GC pause)
        // counts against it
        long startBy = System.currentTimeMillis() + this.settings.lease().toMillis() * 9 / 10;
        TaskBroker.Batch batch;
        this.scheduledSinceClaim.set(Long.MAX_VALUE);
        try {
            batch = this.broker.claim(this.endpoint.queue(), reserved);
        }
        catch (RuntimeException ex) {
            this.workers.release(reserved);
            throw ex;
        }
        this.workers.release(reserved - batch.tasks().size());
        // start no handler whose lease may have run out while it waited: another consumer may have the task by then
        for (StoredTask task : batch.tasks()) {
            this.workers.execute(task, () -> {
                try {
                    if (this.workers.awaitRoomToStart(startBy)) {
                        handle(task);
                    }
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        if (batch.taken() < reserved) {
            long wait = this.settings.pollInterval().toMillis();
            if (batch.nextDueInMillis() >= 0) {
                wait = Math.min(wait, batch.nextDueInMillis());
            }
            sleep(wait);
        }
    }

    private void handle(StoredTask task) {
        Throwable failure = null;
        try {
            this.invoker.invoke(task.toDelayTask());
        }
        catch (Throwable ex) {
            failure = ex;
        }
        boolean handedOver = false;
        try {
            if (failure == null) {
                this.acknowledger.add(task);
                handedOver = true;
            }
            else {
                if (!(failure instanceof RetryLaterException)) {
                    logger.warn("Task " + task.taskId() + " failed in " + this.endpoint.describe() + " (attempt "
                            + task.attempts() + " of " + this.retryPolicy.maxAttempts() + ")", failure);
                }
                this.broker.fail(task, failure, this.retryPolicy);
            }
        }
        catch (RuntimeException ex) {
            logger.error("Could not record the outcome of task " + task.taskId() + "; it will be delivered again "
                    + "when its lease runs out", ex);
        }
        finally {
            if (!handedOver) {
                this.workers.recorded(1);
            }
        }
    }

    private void wake() {
        synchronized (this.signal) {
            this.signal.notifyAll();
        }
    }

    /** Sleep until the deadline, or until a task scheduled here since the last claim is due, or until stopped. */
    private void sleep(long millis) throws InterruptedException {
        if (millis <= 0) {
            return;
        }
        synchronized (this.signal) {
            long deadline = System.currentTimeMillis() + millis;
            this.sleepingUntil = deadline;
            try {
                while (this.running) {
                    long remaining = Math.min(deadline, this.scheduledSinceClaim.get()) - System.currentTimeMillis();
                    if (remaining <= 0) {
                        return;
                    }
                    this.signal.wait(remaining);
                }
            }
            finally {
                this.sleepingUntil = Long.MAX_VALUE;
            }
        }
    }

    private void sleepQuietly(long millis) {
        try {
            sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            this.running = false;
        }
    }

}
