package io.github.delaytask.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

import io.github.delaytask.core.Outcomes;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Records executed tasks in batches: whatever finished while the previous batch was being written goes into the
 * next one, so under load one transaction and one Redis call acknowledge many tasks, and when idle a task is
 * acknowledged at once. The database's transaction is what records them; Redis is told after it, by
 * {@link RedisBookkeeping}, so that a Redis that stalls holds up no outcome. Under a steady stream of few tasks at a
 * time, batches begin at most every {@link #BUSY_BATCH_GAP_NANOS}.
 * <p>
 * A batch the database could not take (a connection lost for a moment) is tried again, with a growing pause, for
 * as long as the leases of its tasks last; only a task whose lease ran out first is left to be delivered again. The
 * thread logs whatever it catches, {@link Error}s included, and goes on: the instance's handlers wait on it.
 * <p>
 * A task whose row another transaction holds (on MySQL and MariaDB, a cancel in a business transaction that found
 * the task running keeps its lock until the caller commits) is left to {@link HeldOutcomes}, so that the batches of
 * every other task go on.
 */
final class Acknowledger implements Runnable {

    private static final Log logger = LogFactory.getLog(Acknowledger.class);

    private static final int MAX_BATCH = 500;

    /**
     * A batch begun less than this after the previous one began, while few tasks are pending, waits until then for
     * more: under a steady stream a transaction per task or two would cost the database more than the stream.
     */
    static final long BUSY_BATCH_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(8);

    /** Fewer pending tasks than this are worth waiting for more, while busy. */
    private static final int SMALL_BATCH = 20;

    /** When the last batch began, nanos of {@link System#nanoTime()}. */
    private long lastBatchStart = System.nanoTime() - BUSY_BATCH_GAP_NANOS;

    private final Outcomes outcomes;

    private final IntConsumer recorded;

    /** Whether handlers wait for outcomes to be recorded before they may start: then no batch waits for more. */
    private final BooleanSupplier handlersWaiting;

    private final BlockingQueue<Executed> pending = new LinkedBlockingQueue<>();

    private final HeldOutcomes held;

    private final RedisBookkeeping redis;

    /** Tasks of a batch the database did not take, tried again first; only this thread touches it. */
    private final List<Executed> retrying = new ArrayList<>();

    private Backoff backoff = new Backoff();

    private volatile boolean running;

    private Thread thread;

    /**
     * @param recorded told how many tasks' outcomes are recorded, or never will be
     * @param handlersWaiting whether handlers wait for outcomes to be recorded before they may start (a small pool:
     * the tasks not recorded yet are as many as it may hold)
     */
    Acknowledger(Outcomes outcomes, Duration lease, RedisBookkeeping redis, IntConsumer recorded,
            BooleanSupplier handlersWaiting) {
        this.outcomes = outcomes;
        this.redis = redis;
        this.held = new HeldOutcomes(outcomes, lease, redis, () -> this.thread != null && this.thread.isAlive());
        this.recorded = recorded;
        this.handlersWaiting = handlersWaiting;
    }

    void start() {
        this.running = true;
        this.thread = new Thread(this, "delay-task-acknowledger");
        this.thread.setDaemon(true);
        this.thread.start();
        this.held.start();
    }

    /**
     * @param recordBy until when the task's lease lasts, in nanos of {@link System#nanoTime()}
     */
    void add(StoredTask executed, long recordBy) {
        this.pending.add(new Executed(executed, recordBy));
    }

    /**
     * Acknowledge what is pending, then stop; give up on what is left at the deadline.
     * @param deadlineNanos in nanos of {@link System#nanoTime()}
     */
    void stop(long deadlineNanos) throws InterruptedException {
        this.running = false;
        if (this.thread == null) {
            return;
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        this.thread.join(Math.max(1, millis));
        if (this.thread.isAlive()) {
            this.thread.interrupt();
        }
        this.held.stop(deadlineNanos);
    }

    @Override
    public void run() {
        while (this.running || !this.pending.isEmpty() || !this.retrying.isEmpty()) {
            try {
                List<Executed> batch = nextBatch();
                if (!batch.isEmpty()) {
                    acknowledge(batch);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                giveUp(this.retrying, "the application is stopping");
                return;
            }
            catch (Throwable ex) {
                logger.error("The delay-task acknowledger failed; it goes on", ex);
            }
        }
    }

    private List<Executed> nextBatch() throws InterruptedException {
        List<Executed> batch = new ArrayList<>(this.retrying);
        this.retrying.clear();
        if (batch.isEmpty()) {
            Executed first = this.pending.poll(100, TimeUnit.MILLISECONDS);
            if (first == null) {
                return batch;
            }
            batch.add(first);
            this.pending.drainTo(batch, MAX_BATCH - batch.size());
            long until = this.lastBatchStart + BUSY_BATCH_GAP_NANOS;
            if (batch.size() < SMALL_BATCH && this.running && until - System.nanoTime() > 0
                    && !this.handlersWaiting.getAsBoolean()) {
                linger(until);
            }
        }
        this.pending.drainTo(batch, MAX_BATCH - batch.size());
        this.lastBatchStart = System.nanoTime();
        return batch;
    }

    /** Wait for more tasks until then; an interrupt (a stop) ends the wait, and the batch in hand is still written. */
    private static void linger(long until) {
        try {
            TimeUnit.NANOSECONDS.sleep(until - System.nanoTime());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void acknowledge(List<Executed> batch) throws InterruptedException {
        List<StoredTask> tasks = new ArrayList<>(batch.size());
        batch.forEach((executed) -> tasks.add(executed.task()));
        try {
            Outcomes.Recorded recorded = this.outcomes.recordAll(tasks);
            this.held.add(recorded.held());
            forget(this.outcomes, this.redis, recorded.finished());
            this.backoff = new Backoff();
            // those held count as recorded: they wait on a thread of their own, and take no handler's room
            this.recorded.accept(batch.size());
        }
        catch (Throwable ex) {
            if (!Backoff.mayPass(ex)) {
                logger.error("Could not record " + batch.size() + " executed task(s); they will be delivered again "
                        + "when their lease runs out", ex);
                this.recorded.accept(batch.size());
                return;
            }
            long pause = this.backoff.nextMillis();
            long resumeAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause);
            List<Executed> expiring = new ArrayList<>();
            for (Executed executed : batch) {
                (executed.recordBy() > resumeAt ? this.retrying : expiring).add(executed);
            }
            if (!expiring.isEmpty()) {
                logger.error("Could not record " + expiring.size() + " executed task(s) within their lease; they "
                        + "will be delivered again", ex);
                giveUp(expiring, null);
            }
            if (!this.retrying.isEmpty()) {
                logger.warn("Could not record " + this.retrying.size() + " executed task(s); trying again in "
                        + pause + " ms" + (logger.isDebugEnabled() ? "" : ": " + ex));
                logger.debug("Recording failed", ex);
                TimeUnit.MILLISECONDS.sleep(pause);
            }
        }
    }

    /** Have Redis forget tasks the database recorded, when it answers. */
    static void forget(Outcomes outcomes, RedisBookkeeping redis, List<StoredTask> finished) {
        if (!finished.isEmpty()) {
            redis.submit("forget " + finished.size() + " finished task(s)", () -> outcomes.forget(finished));
        }
    }

    private void giveUp(List<Executed> tasks, String why) {
        if (tasks.isEmpty()) {
            return;
        }
        if (why != null) {
            logger.warn(tasks.size() + " executed task(s) are not recorded (" + why + "); they will be delivered "
                    + "again when their lease runs out");
        }
        this.recorded.accept(tasks.size());
        tasks.clear();
    }

    /**
     * @param task the task whose handler returned
     * @param recordBy until when its lease lasts, in nanos of {@link System#nanoTime()}
     */
    private record Executed(StoredTask task, long recordBy) {
    }

}
