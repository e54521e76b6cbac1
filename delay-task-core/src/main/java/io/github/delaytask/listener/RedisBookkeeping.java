package io.github.delaytask.listener;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Redis's half of what the database recorded first: forgetting finished tasks, extending the leases of running ones.
 * It runs on a thread of its own, so that a Redis that stalls (a Sentinel fail-over, {@code CLIENT PAUSE}, a
 * partition, each up to the command timeout) holds up no outcome and no lease renewal in the database; what piled up
 * meanwhile is sent once Redis answers.
 * <p>
 * None of it is needed for correctness: an id Redis was not told to forget is handed out when its lease runs out and
 * dropped, as the database says its task is finished; a lease not extended in Redis is handed out and found leased in
 * the database. So a piece that fails is tried again, with a growing pause, only as long as a lease lasts, and when
 * more than {@link #CAPACITY} pieces wait, new ones are dropped rather than held in memory.
 */
final class RedisBookkeeping {

    private static final Log logger = LogFactory.getLog(RedisBookkeeping.class);

    /** Pieces waiting at most: each one stands for one batch, so this is minutes of a busy instance. */
    static final int CAPACITY = 10_000;

    private final long giveUpAfterNanos;

    private final AtomicLong dropped = new AtomicLong();

    private final AtomicBoolean failing = new AtomicBoolean();

    private final ThreadPoolExecutor executor;

    /**
     * @param giveUpAfterNanos how long a piece that fails is tried again: a lease, after which Redis hands the id out
     * anyway
     */
    RedisBookkeeping(long giveUpAfterNanos) {
        this.giveUpAfterNanos = giveUpAfterNanos;
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(CAPACITY),
                (runnable) -> {
                    Thread thread = new Thread(runnable, "delay-task-redis-bookkeeping");
                    thread.setDaemon(true);
                    return thread;
                }, (runnable, executor) -> {
                    if (!executor.isShutdown() && this.dropped.getAndIncrement() == 0) {
                        logger.warn("Redis has not answered for a while: more than " + CAPACITY + " pieces of its "
                                + "bookkeeping wait, and new ones are dropped. The outcomes are in the database; "
                                + "Redis hands their ids out when their leases run out, and the database drops them");
                    }
                });
    }

    /**
     * Send this to Redis when it answers.
     * @param what what it does, for the log
     */
    void submit(String what, Runnable piece) {
        try {
            this.executor.execute(() -> run(what, piece));
        }
        catch (RejectedExecutionException ex) {
            // stopped: what is left is Redis's to find out when leases run out
        }
    }

    /** How many pieces were dropped because too many waited. */
    long dropped() {
        return this.dropped.get();
    }

    private void run(String what, Runnable piece) {
        Backoff backoff = new Backoff();
        long giveUpAt = System.nanoTime() + this.giveUpAfterNanos;
        while (true) {
            try {
                piece.run();
                if (this.failing.compareAndSet(true, false)) {
                    logger.info("Redis answers again: its bookkeeping catches up (" + this.dropped.getAndSet(0)
                            + " piece(s) dropped meanwhile)");
                }
                return;
            }
            catch (RuntimeException ex) {
                if (this.failing.compareAndSet(false, true)) {
                    logger.warn("Could not " + what + " in Redis; the database has it, and Redis is told when it "
                            + "answers: " + ex);
                }
                logger.debug("Could not " + what + " in Redis", ex);
                long pause = backoff.nextMillis();
                if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) - giveUpAt > 0
                        || this.executor.isShutdown()) {
                    return;
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(pause);
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * Send what waits, until the deadline, then stop: what is left is Redis's to find out when leases run out.
     * @param deadlineNanos in nanos of {@link System#nanoTime()}
     */
    void stop(long deadlineNanos) throws InterruptedException {
        this.executor.shutdown();
        if (!this.executor.awaitTermination(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            this.executor.shutdownNow();
        }
    }

}
