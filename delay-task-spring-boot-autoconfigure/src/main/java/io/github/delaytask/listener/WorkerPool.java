package io.github.delaytask.listener;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The bounded pool that runs handlers. A poller claims only as many tasks as there are free threads, so no task
 * waits in a queue while its lease runs down, and none is lost in a queue on shutdown.
 */
final class WorkerPool {

    private final Semaphore permits;

    private final ThreadPoolExecutor executor;

    WorkerPool(int concurrency) {
        this.permits = new Semaphore(concurrency);
        this.executor = new ThreadPoolExecutor(concurrency, concurrency, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), new CustomizableThreadFactory("delay-task-worker-"));
        this.executor.allowCoreThreadTimeOut(true);
    }

    /**
     * Reserve between one and {@code max} threads, waiting up to {@code timeoutMillis} for the first.
     * @return how many were reserved; 0 if none became free in time
     */
    int acquire(int max, long timeoutMillis) throws InterruptedException {
        if (!this.permits.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS)) {
            return 0;
        }
        int acquired = 1;
        while (acquired < max && this.permits.tryAcquire()) {
            acquired++;
        }
        return acquired;
    }

    void release(int count) {
        if (count > 0) {
            this.permits.release(count);
        }
    }

    /** Run a handler on a reserved thread; the reservation ends with it. */
    void execute(Runnable handler) {
        this.executor.execute(() -> {
            try {
                handler.run();
            }
            finally {
                this.permits.release();
            }
        });
    }

    /**
     * Let running handlers finish within the timeout.
     * @return whether all finished
     */
    boolean shutdown(Duration timeout) throws InterruptedException {
        this.executor.shutdown();
        return this.executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

}
