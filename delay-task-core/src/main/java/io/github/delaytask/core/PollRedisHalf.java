package io.github.delaytask.core;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Tells Redis of what {@code poll} recorded, off the polling thread, so that a Redis that stalls after the claim
 * holds up neither the caller nor the outcome, which the database has. One thread, started at the first outcome and
 * ending when idle; at most {@value #PENDING} wait, and what is dropped beyond them waits in flight until its lease
 * runs out, when the claim that hands it out drops it, as the database says it finished.
 */
final class PollRedisHalf implements Executor {

    private static final Log logger = LogFactory.getLog(PollRedisHalf.class);

    private static final int PENDING = 10_000;

    /** Guarded by this; null until the first outcome, and once closed. */
    private @Nullable ThreadPoolExecutor executor;

    private boolean closed;

    @Override
    public void execute(Runnable redisWork) {
        ThreadPoolExecutor current;
        synchronized (this) {
            if (this.closed) {
                return;
            }
            if (this.executor == null) {
                CustomizableThreadFactory threads = new CustomizableThreadFactory("delay-task-poll-redis-");
                threads.setDaemon(true);
                ThreadPoolExecutor started = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS,
                        new LinkedBlockingQueue<>(PENDING), threads, new ThreadPoolExecutor.DiscardOldestPolicy());
                started.allowCoreThreadTimeOut(true);
                this.executor = started;
            }
            current = this.executor;
        }
        current.execute(() -> {
            try {
                redisWork.run();
            }
            catch (RuntimeException ex) {
                logger.debug("Could not tell Redis of an outcome poll recorded", ex);
            }
        });
    }

    /**
     * This executor, waiting for each piece of work up to the given bound: a retry moved in Redis before the poll
     * returns is there for the caller's next poll, unless Redis is slower than the bound.
     */
    Executor waitingUpTo(Duration bound) {
        return (redisWork) -> {
            CountDownLatch done = new CountDownLatch(1);
            execute(() -> {
                try {
                    redisWork.run();
                }
                finally {
                    done.countDown();
                }
            });
            try {
                done.await(bound.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /** Stop: what still waits is left to the claims that hand its ids out again. */
    synchronized void close() {
        this.closed = true;
        if (this.executor != null) {
            this.executor.shutdownNow();
            this.executor = null;
        }
    }

}
