package io.github.delaytask.listener;

import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;

/**
 * Redis's half of what the database recorded first: forgetting finished tasks, extending the leases of running ones.
 * It runs on a thread of its own, so that a Redis that stalls (a Sentinel fail-over, {@code CLIENT PAUSE}, a
 * partition, each up to the command timeout) holds up no outcome and no lease renewal in the database; what piled up
 * meanwhile is sent once Redis answers.
 * <p>
 * None of it is needed for correctness: an id Redis was not told to forget is handed out when its lease runs out and
 * dropped, as the database says its task is finished; a lease not extended in Redis is handed out and found leased in
 * the database. So a piece that fails because Redis did not answer is tried again, with a growing pause, only as long
 * as a lease lasts; a lease extension waiting is replaced by the next; and when more than {@link #CAPACITY} pieces
 * wait, new ones are dropped rather than held in memory.
 */
final class RedisBookkeeping {

    private static final Log logger = LogFactory.getLog(RedisBookkeeping.class);

    /** Pieces waiting at most: each one stands for one batch, so this is minutes of a busy instance. */
    static final int CAPACITY = 10_000;

    private final long giveUpAfterNanos;

    private final AtomicLong dropped = new AtomicLong();

    private final AtomicBoolean failing = new AtomicBoolean();

    /** The newest piece of each kind that only the latest counts for, while one waits to be sent. */
    private final Map<Object, Runnable> latest = new ConcurrentHashMap<>();

    private final ThreadPoolExecutor executor;

    /**
     * @param giveUpAfterNanos how long a piece that fails is tried again: a lease, after which Redis hands the id out
     * anyway
     */
    RedisBookkeeping(long giveUpAfterNanos) {
        this.giveUpAfterNanos = giveUpAfterNanos;
        this.executor = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new ArrayBlockingQueue<>(CAPACITY),
                (runnable) -> {
                    Thread thread = new Thread(runnable, "delay-task-redis-bookkeeping");
                    thread.setDaemon(true);
                    return thread;
                });
        // no thread kept while there is nothing to send, nor after a stop that did not end it
        this.executor.allowCoreThreadTimeOut(true);
    }

    /**
     * Send this to Redis when it answers.
     * @param what what it does, for the log
     * @return whether it waits to be sent; {@code false} when too many wait, or when stopped
     */
    boolean submit(String what, Runnable piece) {
        try {
            this.executor.execute(() -> run(what, piece));
            return true;
        }
        catch (RejectedExecutionException ex) {
            if (!this.executor.isShutdown() && this.dropped.getAndIncrement() == 0) {
                logger.warn("Redis has not answered for a while: more than " + CAPACITY + " pieces of its "
                        + "bookkeeping wait, and new ones are dropped. The outcomes are in the database; Redis hands "
                        + "their ids out when their leases run out, and the database drops them");
            }
            // stopped: what is left is Redis's to find out when leases run out
            return false;
        }
    }

    /**
     * Send this to Redis when it answers, unless a newer piece of the same kind replaces it first: lease extensions,
     * each of which supersedes the one before, so that a Redis that stalls for many rounds leaves one waiting.
     */
    void submitLatest(String what, Object kind, Runnable piece) {
        if (this.latest.put(kind, piece) == null && !submit(what, () -> {
            Runnable newest = this.latest.remove(kind);
            if (newest != null) {
                newest.run();
            }
        })) {
            this.latest.remove(kind, piece);
        }
    }

    /** How many pieces were dropped because too many waited, since the last one sent. */
    long dropped() {
        return this.dropped.get();
    }

    private void run(String what, Runnable piece) {
        Backoff backoff = new Backoff();
        long giveUpAt = System.nanoTime() + this.giveUpAfterNanos;
        while (true) {
            try {
                piece.run();
                long lost = this.dropped.getAndSet(0);
                if (this.failing.compareAndSet(true, false) || lost > 0) {
                    logger.info("Redis answers again: its bookkeeping catches up (" + lost + " piece(s) dropped "
                            + "meanwhile)");
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
                if (!mayPass(ex) || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) - giveUpAt > 0
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

    /** Whether Redis may answer the same call later: it was out of reach or timed out, not wrong. */
    private static boolean mayPass(RuntimeException ex) {
        return ex instanceof RedisConnectionFailureException || ex instanceof QueryTimeoutException
                || ex instanceof RedisSystemException;
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
