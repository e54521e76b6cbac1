package io.github.delaytask.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.store.StoredTask;

import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The bounded pool that runs handlers, and the limit on tasks claimed ahead of free threads.
 * <p>
 * Claiming a batch costs a few round trips whatever its size, so fast handlers are fed from a small backlog of
 * claimed tasks. Claimed tasks wait under their lease, so the backlog adapts to how long handlers take: it is kept
 * short enough that a waiting task starts within half a lease. On shutdown, tasks that have not started are handed
 * back rather than left to wait for their lease.
 */
final class WorkerPool implements Capacity {

    private static final double SMOOTHING = 0.2;

    private static final String THREAD_NAME_PREFIX = "delay-task-worker-";

    private final int concurrency;

    private final int prefetch;

    private final long halfLeaseMillis;

    private final Semaphore permits;

    /**
     * Handlers started whose outcome is not recorded yet: what a crash can make run twice. As many as the tasks this
     * instance may hold, so that the batched acknowledgements do not throttle fast handlers.
     */
    private final Semaphore unrecorded;

    private final int totalPermits;

    private final ThreadPoolExecutor executor;

    private volatile boolean interrupted;

    /** Whether the application stops: a handler waiting for room to start starts no more, and goes back. */
    private volatile boolean stopping;

    /** Average handler time, in ms; racy updates are fine for an estimate. */
    private volatile double averageMillis;

    WorkerPool(ListenerSettings settings) {
        this.concurrency = settings.concurrency();
        this.prefetch = settings.prefetch();
        this.halfLeaseMillis = settings.lease().toMillis() / 2;
        this.totalPermits = this.concurrency + this.prefetch;
        this.permits = new Semaphore(this.totalPermits);
        this.unrecorded = new Semaphore(this.totalPermits);
        this.executor = new ThreadPoolExecutor(this.concurrency, this.concurrency, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), threads(settings.virtualThreads()));
        this.executor.allowCoreThreadTimeOut(true);
    }

    /**
     * Virtual threads or platform ones, bounded by the pool either way; both are daemons, so that a handler that
     * ignores the interrupt at shutdown does not keep the JVM alive.
     */
    private static ThreadFactory threads(boolean virtual) {
        if (virtual) {
            return new VirtualThreadTaskExecutor(THREAD_NAME_PREFIX).getVirtualThreadFactory();
        }
        CustomizableThreadFactory threads = new CustomizableThreadFactory(THREAD_NAME_PREFIX);
        threads.setDaemon(true);
        return threads;
    }

    /** The executor of the handlers, for metrics. */
    ThreadPoolExecutor executor() {
        return this.executor;
    }

    /**
     * Reserve room for between one and {@code max} tasks, waiting up to {@code timeoutMillis} for the first.
     * @return how many were reserved; 0 if there was no room in time
     */
    @Override
    public int acquire(int max, long timeoutMillis) throws InterruptedException {
        if (!this.permits.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS)) {
            return 0;
        }
        int limit = this.concurrency + aheadAllowed();
        int acquired = 1;
        while (acquired < max && inUse() < limit && this.permits.tryAcquire()) {
            acquired++;
        }
        if (inUse() > limit && acquired > 1) {
            // slow handlers: a task claimed now would wait past half its lease
            int excess = Math.min(acquired - 1, inUse() - limit);
            this.permits.release(excess);
            acquired -= excess;
        }
        return acquired;
    }

    /**
     * Wait, until {@code startBy} at most, for fewer than {@code concurrency + prefetch} handlers to be started and
     * not recorded, so that a crash makes at most that many tasks run twice, however far behind the batched
     * acknowledgements are.
     * @param startBy the latest start, in nanos of {@link System#nanoTime()}
     * @return whether the handler may start; if so, {@link #recorded(int)} must follow
     */
    boolean awaitRoomToStart(long startBy) throws InterruptedException {
        long wait = startBy - System.nanoTime();
        if (this.stopping || wait <= 0 || !this.unrecorded.tryAcquire(wait, TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (this.stopping) {
            // woken by stopStarting, or room came as the stop began: pass the room on, to wake the next in line
            this.unrecorded.release();
            return false;
        }
        return true;
    }

    /**
     * Start no more handlers: those waiting for room to start give up at once, and their tasks go back, rather than
     * start once outcomes are recorded, after the stop began.
     */
    void stopStarting() {
        this.stopping = true;
        // wakes one waiting handler, which passes it on to the next
        this.unrecorded.release();
    }

    /** Whether handlers wait in {@link #awaitRoomToStart(long)} for outcomes to be recorded. */
    boolean handlersWaitToStart() {
        return this.unrecorded.hasQueuedThreads();
    }

    /** The outcome of that many started handlers is recorded, or will not be. */
    void recorded(int count) {
        this.unrecorded.release(count);
    }

    @Override
    public void release(int count) {
        if (count > 0) {
            this.permits.release(count);
        }
    }

    /**
     * Run a handler for a reserved task; the reservation ends with it, or when the task is taken back unstarted.
     * @throws java.util.concurrent.RejectedExecutionException if the pool has shut down; the reservation has ended
     */
    void execute(StoredTask task, Reservation reservation, Runnable handler) {
        HandlerRun run = new HandlerRun(task, reservation, () -> {
            long start = System.nanoTime();
            try {
                handler.run();
            }
            finally {
                double millis = (System.nanoTime() - start) / 1e6;
                double average = this.averageMillis;
                this.averageMillis = (average == 0) ? millis : average + SMOOTHING * (millis - average);
                reservation.release();
            }
        });
        try {
            this.executor.execute(run);
        }
        catch (RuntimeException ex) {
            reservation.release();
            throw ex;
        }
    }

    /**
     * Take back the tasks that wait for a thread and have not started; their reservations end.
     */
    List<StoredTask> takeUnstarted() {
        List<Runnable> waiting = new ArrayList<>();
        this.executor.getQueue().drainTo(waiting);
        List<StoredTask> tasks = new ArrayList<>(waiting.size());
        for (Runnable run : waiting) {
            HandlerRun unstarted = (HandlerRun) run;
            unstarted.reservation.release();
            tasks.add(unstarted.task);
        }
        return tasks;
    }

    /**
     * Let running handlers finish, until the deadline.
     * @param deadline in nanos of {@link System#nanoTime()}
     * @return whether all finished
     */
    boolean shutdown(long deadline) throws InterruptedException {
        this.executor.shutdown();
        return this.executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * Interrupt the handlers still running, and wait for them until the deadline.
     * @param deadline in nanos of {@link System#nanoTime()}
     */
    void interrupt(long deadline) throws InterruptedException {
        this.interrupted = true;
        this.executor.shutdownNow();
        this.executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Whether running handlers were interrupted because the application is stopping. */
    boolean interruptedForShutdown() {
        return this.interrupted;
    }

    private int inUse() {
        return this.totalPermits - this.permits.availablePermits();
    }

    private int aheadAllowed() {
        double average = this.averageMillis;
        if (average < 1) {
            return this.prefetch;
        }
        return (int) Math.min(this.prefetch, this.concurrency * (this.halfLeaseMillis / average));
    }

    private record HandlerRun(StoredTask task, Reservation reservation, Runnable body) implements Runnable {

        @Override
        public void run() {
            this.body.run();
        }

    }

}
