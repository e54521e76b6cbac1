package io.github.delaytask.scheduling;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.TaskSchedule;
import io.github.delaytask.core.Schedules;
import io.github.delaytask.store.ScheduleStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Stores the schedules the application declares as it starts, then looks at the due schedules once an interval on a
 * thread of its own, on every instance: the version of each schedule's row lets one instance store each time's task.
 * Public for wiring.
 */
public class ScheduleKeeper implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(ScheduleKeeper.class);

    private final Schedules schedules;

    private final ScheduleStore store;

    private final List<TaskSchedule> declared;

    private final Duration interval;

    private volatile ScheduledExecutorService executor;

    private volatile boolean running;

    /**
     * @param declared the schedules the application declares
     * @param interval how often the due schedules are looked at
     */
    public ScheduleKeeper(Schedules schedules, ScheduleStore store, List<TaskSchedule> declared, Duration interval) {
        this.schedules = schedules;
        this.store = store;
        this.declared = List.copyOf(declared);
        this.interval = interval;
    }

    /**
     * Fails when schedules are declared and the schema lacks their table; without declarations, a schema of an
     * earlier version is no reason to fail, and nothing is looked at.
     */
    @Override
    public synchronized void start() {
        if (this.running) {
            return;
        }
        List<String> missing;
        try {
            missing = this.store.missingSchema();
        }
        catch (DataAccessException ex) {
            logger.warn("Could not check the delay-task schedules' table; looking at it again in " + this.interval,
                    ex);
            missing = List.of();
        }
        if (!missing.isEmpty()) {
            if (!this.declared.isEmpty()) {
                throw new IllegalStateException("The application declares recurring schedules " + names()
                        + ", but the delay-task schema lacks the " + missing.get(0));
            }
            logger.info("The delay-task schema lacks the " + missing.get(0) + "; this instance looks at no schedule "
                    + "until it starts again with the table there");
            return;
        }
        this.running = true;
        this.executor = new ScheduledThreadPoolExecutor(1, new CustomizableThreadFactory("delay-task-schedules-"));
        // here rather than on the thread: once started, the application's schedules are as it declares them
        declare();
        this.executor.scheduleWithFixedDelay(this::keep, 0, this.interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void declare() {
        try {
            this.schedules.declare(this.declared);
        }
        catch (RuntimeException ex) {
            logger.warn("Could not store the declared schedules " + names() + "; trying again in " + this.interval,
                    ex);
            this.executor.schedule(this::declare, this.interval.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void keep() {
        try {
            int stored = this.schedules.keep();
            if (stored > 0 && logger.isDebugEnabled()) {
                logger.debug("Stored the tasks of " + stored + " time(s) of recurring schedules");
            }
        }
        catch (Throwable ex) {
            if (this.running) {
                logger.warn("Could not look at the recurring schedules; looking again in " + this.interval, ex);
            }
        }
    }

    private List<String> names() {
        return this.declared.stream().map(TaskSchedule::getName).toList();
    }

    @Override
    public synchronized void stop() {
        if (!this.running) {
            return;
        }
        this.running = false;
        this.executor.shutdownNow();
        try {
            // a look cut short is done by the next one, here or elsewhere: its transaction rolls back
            this.executor.awaitTermination(DelayTaskJobs.STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /** With the jobs, just before the listeners. */
    @Override
    public int getPhase() {
        return DEFAULT_PHASE - 1;
    }

}
