package io.github.delaytask.listener;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The leases of the tasks whose handlers run on this instance, extended while they run: a handler that runs longer
 * than {@code delay-task.lease} runs once, as long as its instance lives. Every third of a lease, the leases of the
 * handlers that have run for a third of one or more are extended by a lease, all of them in one Redis round trip and
 * one statement. An instance that dies extends nothing, and its tasks are delivered again within one lease.
 */
final class Leases {

    private static final Log logger = LogFactory.getLog(Leases.class);

    private final Set<Lease> running = ConcurrentHashMap.newKeySet();

    private final Renewal renewal;

    private final long leaseNanos;

    private ScheduledExecutorService renewer;

    /**
     * @param renewal extends the leases of tasks in Redis and in the database
     * @param leaseNanos the length of a lease
     */
    Leases(Renewal renewal, long leaseNanos) {
        this.renewal = renewal;
        this.leaseNanos = leaseNanos;
    }

    void start() {
        this.renewer = Executors.newSingleThreadScheduledExecutor((task) -> {
            Thread thread = new Thread(task, "delay-task-leases");
            thread.setDaemon(true);
            return thread;
        });
        long period = this.leaseNanos / 3;
        this.renewer.scheduleWithFixedDelay(() -> renewDue(System.nanoTime()), period, period, TimeUnit.NANOSECONDS);
    }

    /** Stop extending: once the handlers are done, or left to run on after the shutdown. */
    void stop() {
        if (this.renewer != null) {
            this.renewer.shutdownNow();
        }
    }

    /**
     * A handler starts the task it holds until {@code recordBy}.
     * @param recordBy when its lease runs out, nanos of {@link System#nanoTime()}
     */
    Lease started(StoredTask task, long recordBy) {
        Lease lease = new Lease(task, recordBy);
        this.running.add(lease);
        return lease;
    }

    /** Its handler ended: the lease is no longer extended. */
    void ended(Lease lease) {
        this.running.remove(lease);
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
                logger.debug((due.size() - renewed) + " of " + due.size() + " running task(s) had lost their claim "
                        + "when their leases were extended");
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

        private volatile long recordBy;

        Lease(StoredTask task, long recordBy) {
            this.task = task;
            this.recordBy = recordBy;
        }

        StoredTask task() {
            return this.task;
        }

        /** When the lease runs out, nanos of {@link System#nanoTime()}. */
        long recordBy() {
            return this.recordBy;
        }

    }

    /** Extends the leases of tasks in Redis and in the database. */
    @FunctionalInterface
    interface Renewal {

        /** @return how many the database extended */
        int renew(Collection<StoredTask> running);

    }

}
