package io.github.delaytask.listener;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.core.TaskEvents;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The leases of the tasks whose handlers run on this instance, extended while they run: a handler that runs longer
 * than {@code delay-task.lease} runs once, as long as its instance lives. Every sixth of a lease, the leases with
 * less than two thirds left are extended by a lease, all of them in one Redis round trip and one statement, and a
 * handler that starts with less than a third of its lease left has it extended at once. An instance that dies
 * extends nothing, and its tasks are delivered again within one lease.
 * <p>
 * A handler that runs past its timeout is interrupted, its lease no longer extended, and its task's failure recorded
 * by the caller's action; one still running a while later ({@link #STUCK_AFTER}) ignored the interrupt, and is
 * logged with its thread's stack and listed as stuck until it returns.
 */
final class Leases {

    private static final Log logger = LogFactory.getLog(Leases.class);

    /** How long a timed-out handler has to end once interrupted before it counts as stuck. */
    static final Duration STUCK_AFTER = Duration.ofSeconds(10);

    private final Set<Lease> running = ConcurrentHashMap.newKeySet();

    private final Set<Lease> stuck = ConcurrentHashMap.newKeySet();

    private final Renewal renewal;

    private final long leaseNanos;

    private final TaskEvents events;

    private final Duration stuckAfter;

    private volatile @Nullable ScheduledExecutorService renewer;

    /** Times handlers out and records their failure, apart from the renewals, which must never wait for it. */
    private volatile @Nullable ScheduledExecutorService timer;

    /**
     * @param renewal extends the leases of tasks in Redis and in the database
     * @param leaseNanos the length of a lease
     * @param events what hears of handlers that timed out, and of those that ignored it
     */
    Leases(Renewal renewal, long leaseNanos, TaskEvents events) {
        this(renewal, leaseNanos, events, STUCK_AFTER);
    }

    /**
     * @param stuckAfter how long a timed-out handler has to end once interrupted before it counts as stuck
     */
    Leases(Renewal renewal, long leaseNanos, TaskEvents events, Duration stuckAfter) {
        this.renewal = renewal;
        this.leaseNanos = leaseNanos;
        this.events = events;
        this.stuckAfter = stuckAfter;
    }

    void start() {
        ScheduledThreadPoolExecutor renewer = executor("delay-task-leases");
        long period = this.leaseNanos / 6;
        renewer.scheduleWithFixedDelay(() -> renewDue(System.nanoTime()), period, period, TimeUnit.NANOSECONDS);
        this.renewer = renewer;
        this.timer = executor("delay-task-timeouts");
    }

    private static ScheduledThreadPoolExecutor executor(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        // a timeout cancelled when its handler ends must not stay queued for the rest of its time
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /** Stop extending and timing handlers out: once the handlers are done, or left to run on after the shutdown. */
    void stop() {
        for (ScheduledExecutorService executor : new ScheduledExecutorService[] { this.renewer, this.timer }) {
            if (executor != null) {
                executor.shutdownNow();
            }
        }
    }

    /**
     * A handler starts, on the calling thread, the task it holds until {@code recordBy}.
     * @param recordBy when its lease runs out, nanos of {@link System#nanoTime()}
     */
    Lease started(StoredTask task, long recordBy) {
        return started(task, recordBy, null, null);
    }

    /**
     * A handler starts, on the calling thread, the task it holds until {@code recordBy}, and may run for
     * {@code timeout}.
     * @param recordBy when its lease runs out, nanos of {@link System#nanoTime()}
     * @param timeout how long it may run, or null for as long as it likes
     * @param timedOut what records the run's failure once it timed out, on the thread that extends the leases
     */
    Lease started(StoredTask task, long recordBy, @Nullable Duration timeout, @Nullable TimedOut timedOut) {
        Lease lease = new Lease(task, recordBy, Thread.currentThread());
        this.running.add(lease);
        ScheduledExecutorService renewer = this.renewer;
        ScheduledExecutorService timer = this.timer;
        try {
            if (renewer != null && recordBy - System.nanoTime() < this.leaseNanos / 3) {
                // started late in its lease (it waited for a thread): the next round could come too late
                renewer.execute(() -> renewDue(System.nanoTime()));
            }
            if (timeout != null && timedOut != null && timer != null) {
                lease.timer = timer.schedule(() -> timeOut(lease, timeout, timedOut), saturatedNanos(timeout),
                        TimeUnit.NANOSECONDS);
            }
        }
        catch (RejectedExecutionException ex) {
            // stopping: the shutdown interrupts what still runs
        }
        return lease;
    }

    /** A timeout in nanos, at most about 292 years, where {@link Duration#toNanos()} would overflow. */
    private static long saturatedNanos(Duration timeout) {
        try {
            return timeout.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Its handler ended: the lease is no longer extended.
     * @return whether the run had timed out, in which case its failure was recorded already and the interrupt the
     * thread may still carry is the timeout's
     */
    boolean ended(Lease lease) {
        boolean timedOut;
        boolean wasStuck;
        synchronized (lease) {
            lease.running = false;
            timedOut = lease.timedOut;
            wasStuck = this.stuck.remove(lease);
        }
        if (lease.timer != null) {
            lease.timer.cancel(false);
        }
        this.running.remove(lease);
        if (wasStuck) {
            logger.info("The handler of task " + lease.task.taskId() + " that ignored its timeout's interrupt returned");
        }
        return timedOut;
    }

    /** The handlers that ignored the interrupt of their timeout and still run. */
    List<Lease> stuck() {
        return List.copyOf(this.stuck);
    }

    private void timeOut(Lease lease, Duration timeout, TimedOut timedOut) {
        StackTraceElement[] where;
        synchronized (lease) {
            if (!lease.running) {
                return;
            }
            lease.timedOut = true;
            where = lease.thread.getStackTrace();
            lease.thread.interrupt();
        }
        this.running.remove(lease);
        this.events.handlerTimedOut(lease.task.queue());
        try {
            timedOut.record(lease.task, timeout, where);
        }
        catch (Throwable ex) {
            logger.error("Could not record that task " + lease.task.taskId() + " timed out; it will be delivered "
                    + "again when its lease runs out", ex);
        }
        ScheduledExecutorService timer = this.timer;
        if (timer != null) {
            try {
                timer.schedule(() -> checkEnded(lease), this.stuckAfter.toNanos(), TimeUnit.NANOSECONDS);
            }
            catch (RejectedExecutionException ex) {
                // stopping
            }
        }
    }

    private void checkEnded(Lease lease) {
        Throwable where = new Throwable("the stack of thread " + lease.thread.getName());
        synchronized (lease) {
            if (!lease.running) {
                return;
            }
            // under the lease's lock: the stack is still the handler's, and ended() cannot miss the entry
            where.setStackTrace(lease.thread.getStackTrace());
            this.events.handlerIgnoredTimeout(lease.task.queue());
            this.stuck.add(lease);
        }
        logger.warn("The handler of task " + lease.task.taskId() + " ignored the interrupt of its timeout and still "
                + "runs " + this.stuckAfter.toMillis() + " ms later, on thread " + lease.thread.getName() + ", which no "
                + "other task gets until it returns", where);
    }

    /**
     * Extend the leases that have run for a third of one or more; the others need none yet.
     * @param now nanos of {@link System#nanoTime()}
     * @return how many were asked for
     */
    int renewDue(long now) {
        List<Lease> due = this.running.stream()
            .filter((lease) -> lease.recordBy - now < this.leaseNanos / 3 * 2)
            .toList();
        if (due.isEmpty()) {
            return 0;
        }
        try {
            int renewed = this.renewal.renew(due.stream().map(Lease::task).toList());
            // from before the call: the new leases count from later
            long until = now + this.leaseNanos;
            due.forEach((lease) -> lease.recordBy = until);
            if (renewed < due.size()) {
                logger.debug((due.size() - renewed) + " of " + due.size() + " running task(s) had lost their claim, "
                        + "or another transaction held their rows, when their leases were extended");
            }
        }
        catch (Throwable ex) {
            logger.warn("Could not extend the leases of " + due.size() + " running task(s); those whose handlers "
                    + "outlast their lease will be delivered again", ex);
        }
        return due.size();
    }

    /** The lease of one running task. */
    static final class Lease {

        private final StoredTask task;

        private final Thread thread;

        private volatile long recordBy;

        private volatile @Nullable ScheduledFuture<?> timer;

        /** Guarded by the lease: whether the handler still runs, and whether it timed out. */
        private boolean running = true;

        private boolean timedOut;

        Lease(StoredTask task, long recordBy, Thread thread) {
            this.task = task;
            this.recordBy = recordBy;
            this.thread = thread;
        }

        /** The thread the handler runs on. */
        Thread thread() {
            return this.thread;
        }

        StoredTask task() {
            return this.task;
        }

        /** When the lease runs out, nanos of {@link System#nanoTime()}. */
        long recordBy() {
            return this.recordBy;
        }

    }

    /** Records that a task's handler ran past its timeout. */
    @FunctionalInterface
    interface TimedOut {

        /**
         * @param timeout the timeout it ran past
         * @param where the handler's stack when it was interrupted
         */
        void record(StoredTask task, Duration timeout, StackTraceElement[] where);

    }

    /** Extends the leases of tasks in Redis and in the database. */
    @FunctionalInterface
    interface Renewal {

        /** @return how many the database extended */
        int renew(Collection<StoredTask> running);

    }

}
