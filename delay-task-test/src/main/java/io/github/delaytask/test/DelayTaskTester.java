package io.github.delaytask.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.DelayTaskService;
import io.github.delaytask.listener.ManualDispatcher;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;

import org.springframework.util.Assert;

/**
 * Runs an application's delayed tasks from its tests, the way db-scheduler's {@code ManualScheduler} does: the
 * tasks that are due now at once on the test's thread, the tasks of the next hours by moving time forward, or waits
 * until the listeners have nothing left to do.
 * <p>
 * The bean is there in any test whose class path has {@code delay-task-test} and whose application has the
 * starter. To have tasks run only when a test asks, set {@code delay-task.listener.enabled=false}: the listener
 * containers then do not start, and {@link #runDueTasks()} calls the listener methods itself. With the containers
 * running, use {@link #awaitIdle(Duration)}.
 * <p>
 * Outcomes are recorded as the containers record them: a handler that throws is retried after the listener's
 * back-off (a later {@link #advanceTime(Duration)} reaches it) and becomes {@code DEAD} after its last attempt.
 */
public final class DelayTaskTester {

    private static final int PAGE_SIZE = 1000;

    private static final long IDLE_CHECK_MILLIS = 20;

    private final DelayTaskService service;

    private final TaskStore store;

    private final DelayTaskJobs jobs;

    private final ManualDispatcher dispatcher;

    DelayTaskTester(DelayTaskService service, TaskStore store, DelayTaskJobs jobs, ManualDispatcher dispatcher) {
        this.service = service;
        this.store = store;
        this.jobs = jobs;
        this.dispatcher = dispatcher;
    }

    /**
     * Run every task that is due now, on the calling thread, and every task that becomes due meanwhile (a handler
     * that adds a task without delay), until none is due.
     * @return how many handler runs there were, failed ones included
     */
    public int runDueTasks() {
        // the database is the truth: what it holds as due goes to Redis first, whatever the hand-off after each add
        // did
        this.jobs.reloadNow();
        return this.dispatcher.runDue();
    }

    /**
     * Move time forward for the tasks: every scheduled task comes {@code amount} closer to now (one due within it
     * becomes due now), then the due ones run as {@link #runDueTasks()} runs them. Tasks in flight are left alone.
     * @param amount how far to move, not negative
     * @return how many handler runs there were
     */
    public int advanceTime(Duration amount) {
        Assert.notNull(amount, "Amount must not be null");
        Assert.isTrue(!amount.isNegative(), "Amount must not be negative");
        long now = this.store.currentTimeMillis();
        for (StoredTask task : scheduledTasks(Long.MAX_VALUE)) {
            if (task.leaseUntil() == null || task.leaseUntil() <= now) {
                long executeTime = Math.max(now, task.executeTime() - amount.toMillis());
                this.service.rescheduleTask(task.taskId(), Instant.ofEpochMilli(executeTime));
            }
        }
        return runDueTasks();
    }

    /**
     * Wait until no task is due and none is in flight: every task that was due has run and its outcome is recorded.
     * Tasks due later do not count.
     * @param timeout how long to wait at most
     * @throws IllegalStateException if tasks are still due or in flight after the timeout, naming how many
     */
    public void awaitIdle(Duration timeout) {
        Assert.notNull(timeout, "Timeout must not be null");
        long deadline = System.nanoTime() + timeout.toNanos();
        int busy;
        while ((busy = dueOrInFlight()) > 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(busy + " task(s) still due or in flight after " + timeout);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(IDLE_CHECK_MILLIS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for delayed tasks", ex);
            }
        }
    }

    /** How many tasks are due now or in flight (claimed, their outcome not recorded yet). */
    public int dueOrInFlight() {
        return scheduledTasks(this.store.currentTimeMillis()).size();
    }

    private List<StoredTask> scheduledTasks(long horizon) {
        List<StoredTask> tasks = new ArrayList<>();
        long afterTime = Long.MIN_VALUE;
        long afterId = Long.MIN_VALUE;
        List<StoredTask> page;
        do {
            page = this.store.findDue(horizon, afterTime, afterId, PAGE_SIZE);
            tasks.addAll(page);
            if (!page.isEmpty()) {
                StoredTask last = page.get(page.size() - 1);
                afterTime = last.executeTime();
                afterId = last.taskId();
            }
        }
        while (page.size() == PAGE_SIZE);
        return tasks;
    }

}
