package io.github.delaytask.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.github.delaytask.core.Outcomes;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Records executed tasks whose rows another transaction held when their batch was written: on MySQL and MariaDB,
 * under REPEATABLE READ, a cancel in a business transaction that found the task running keeps the locks of the rows
 * it looked at until the caller commits. Such tasks are tried again every round, never waited for, so that one
 * caller's open transaction holds up neither the other tasks' outcomes nor another held task's, and their leases are
 * extended meanwhile: Redis hands none of them out again, and the database's lease of one is extended as soon as its
 * row is free, so no claim takes it over before its outcome is recorded.
 */
final class HeldOutcomes implements Runnable {

    private static final Log logger = LogFactory.getLog(HeldOutcomes.class);

    /** A task held longer than this is logged: a shorter hold is a lease renewal or a claim passing by. */
    private static final long WARN_AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final long MAX_ROUND_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Outcomes outcomes;

    private final RedisBookkeeping redis;

    /** Whether tasks may still arrive: the acknowledger is running. */
    private final BooleanSupplier arriving;

    private final long roundNanos;

    private final BlockingQueue<StoredTask> added = new LinkedBlockingQueue<>();

    /** The tasks held, with when each was first found held; only this thread touches it. */
    private final Map<StoredTask, Long> waiting = new LinkedHashMap<>();

    private final Set<Long> reported = new HashSet<>();

    private volatile boolean running;

    private Thread thread;

    /**
     * @param lease the lease of a claim: a held task's lease is extended at least every sixth of one
     * @param redis what tells Redis of the outcomes and leases the database recorded
     * @param arriving whether the acknowledger may still hand tasks over
     */
    HeldOutcomes(Outcomes outcomes, Duration lease, RedisBookkeeping redis, BooleanSupplier arriving) {
        this.outcomes = outcomes;
        this.redis = redis;
        this.arriving = arriving;
        this.roundNanos = Math.min(MAX_ROUND_NANOS, lease.toNanos() / 6);
    }

    void start() {
        this.running = true;
        this.thread = new Thread(this, "delay-task-acknowledger-held");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    void add(List<StoredTask> held) {
        this.added.addAll(held);
    }

    /**
     * Try the held tasks once more, then stop; those still held are delivered again when their lease runs out.
     * @param deadlineNanos in nanos of {@link System#nanoTime()}
     */
    void stop(long deadlineNanos) throws InterruptedException {
        this.running = false;
        if (this.thread == null) {
            return;
        }
        this.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
        if (this.thread.isAlive()) {
            this.thread.interrupt();
        }
    }

    @Override
    public void run() {
        try {
            while (true) {
                boolean last = !this.running && !this.arriving.getAsBoolean();
                if (this.waiting.isEmpty()) {
                    StoredTask task = this.added.poll(100, TimeUnit.MILLISECONDS);
                    if (task != null) {
                        this.waiting.put(task, System.nanoTime());
                    }
                    else if (last) {
                        return;
                    }
                    continue;
                }
                long started = System.nanoTime();
                round();
                if (last) {
                    giveUp("the application is stopping");
                    return;
                }
                TimeUnit.NANOSECONDS.sleep(this.roundNanos - (System.nanoTime() - started));
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            giveUp("the application is stopping");
        }
    }

    /** Record what is free now; extend the leases of what is still held. */
    private void round() {
        List<StoredTask> newcomers = new ArrayList<>();
        this.added.drainTo(newcomers);
        long now = System.nanoTime();
        newcomers.forEach((task) -> this.waiting.putIfAbsent(task, now));
        try {
            Outcomes.Recorded recorded = this.outcomes.recordAll(new ArrayList<>(this.waiting.keySet()));
            Acknowledger.forget(this.outcomes, this.redis, recorded.finished());
            List<StoredTask> held = recorded.held();
            this.waiting.keySet().retainAll(new HashSet<>(held));
            this.reported.retainAll(held.stream().map(StoredTask::taskId).toList());
            if (!held.isEmpty()) {
                this.outcomes.renewLeasesInDatabase(held);
                this.redis.submitLatest("extend the leases of " + held.size() + " held task(s)", HeldOutcomes.class,
                        () -> this.outcomes.extendLeasesInRedis(held));
                report(now);
            }
        }
        catch (RuntimeException ex) {
            logger.warn("Could not record " + this.waiting.size() + " executed task(s) whose rows another "
                    + "transaction held; trying again" + (logger.isDebugEnabled() ? "" : ": " + ex));
            logger.debug("Recording held tasks failed", ex);
        }
    }

    private void report(long now) {
        List<Long> longHeld = new ArrayList<>();
        this.waiting.forEach((task, since) -> {
            if (now - since > WARN_AFTER_NANOS && this.reported.add(task.taskId())) {
                longHeld.add(task.taskId());
            }
        });
        if (!longHeld.isEmpty()) {
            logger.warn("Another transaction holds the row of executed task(s) " + longHeld + " (a cancel or "
                    + "reschedule in a business transaction that has not ended?): their outcome is recorded once it "
                    + "ends, and they are not run again meanwhile");
        }
    }

    private void giveUp(String why) {
        List<StoredTask> newcomers = new ArrayList<>();
        this.added.drainTo(newcomers);
        newcomers.forEach((task) -> this.waiting.putIfAbsent(task, 0L));
        if (!this.waiting.isEmpty()) {
            logger.warn(this.waiting.size() + " executed task(s) " + this.waiting.keySet().stream()
                .map(StoredTask::taskId)
                .toList() + " whose rows another transaction held are not recorded (" + why + "); they will be "
                    + "delivered again when their lease runs out");
            this.waiting.clear();
        }
    }

}
