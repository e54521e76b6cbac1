package io.github.delaytask.core;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskException;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.ScheduleDetails;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.store.ScheduleStore;
import io.github.delaytask.store.StoredSchedule;
import io.github.delaytask.store.StoredSchedule.State;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.transaction.TransactionException;
import org.springframework.util.Assert;
import org.springframework.util.DigestUtils;

/**
 * Recurring schedules over the stored tasks: saves, pauses and removes them, and at each look stores the tasks of
 * the due ones' times, each time's task and the schedule's next time in one transaction, which the row's version
 * fences, so that a time's task is stored once across the cluster and no crash loses the schedule's way on. Public
 * for wiring.
 */
public class Schedules {

    private static final Log logger = LogFactory.getLog(Schedules.class);

    /** Tries of a change that meets concurrent changes of the same schedule. */
    private static final int TRIES = 5;

    private final ScheduleStore store;

    private final Tasks tasks;

    private final Clock clock;

    private final long horizon;

    private final long maxParametersSize;

    /**
     * Schedules whose parameters may be of any size.
     * @see #Schedules(ScheduleStore, Tasks, Clock, Duration, long)
     */
    public Schedules(ScheduleStore store, Tasks tasks, Clock clock, Duration horizon) {
        this(store, tasks, clock, horizon, Long.MAX_VALUE);
    }

    /**
     * @param tasks where the tasks of the schedules' times are added and cancelled
     * @param clock the clock of execute times
     * @param horizon how far ahead the tasks of a schedule's times are stored; a time older than that when looked at
     * was missed
     * @param maxParametersSize the most bytes of parameters a schedule may give its tasks, as any task
     * ({@code delay-task.max-parameters-size})
     */
    public Schedules(ScheduleStore store, Tasks tasks, Clock clock, Duration horizon, long maxParametersSize) {
        this.store = store;
        this.tasks = tasks;
        this.clock = clock;
        this.horizon = horizon.toMillis();
        this.maxParametersSize = maxParametersSize;
    }

    /** Refuse a schedule whose tasks the service would refuse for the size of their parameters. */
    private void checkParametersSize(TaskSchedule schedule) {
        byte[] parameters = schedule.getParameters();
        Assert.isTrue(parameters == null || parameters.length <= this.maxParametersSize,
                () -> "Schedule '" + schedule.getName() + "' has parameters of " + parameters.length
                        + " bytes: at most delay-task.max-parameters-size, " + this.maxParametersSize);
    }

    /**
     * {@link DelayTaskService#saveSchedule}: the tasks of a saved schedule's first times are stored at once, rather
     * than at the next look.
     */
    public boolean save(TaskSchedule schedule) {
        Assert.notNull(schedule, "Schedule must not be null");
        checkParametersSize(schedule);
        return keptAfter(schedule.getName(), change(schedule.getName(), "save", (stored, now) -> {
            if (stored == null) {
                return inserted(new StoredSchedule(schedule, State.ACTIVE, null, first(schedule, now), 0));
            }
            if (stored.schedule().equals(schedule)) {
                return Outcome.UNCHANGED;
            }
            return redefine(stored, schedule, stored.declaration(), stored.state(), now);
        }));
    }

    /**
     * Store the schedules the application declares, at start-up: a declaration changed since it was last applied (or
     * new) updates the stored schedule; one unchanged leaves it as it is, changes made at run time too. A schedule
     * declared before but not now is paused, and the log says so.
     */
    public void declare(Collection<TaskSchedule> declared) {
        // all checked before any is applied: a start that fails stores none of them
        declared.forEach(this::checkParametersSize);
        for (TaskSchedule schedule : declared) {
            String digest = digest(schedule);
            change(schedule.getName(), "declare", (stored, now) -> {
                if (stored == null) {
                    return inserted(new StoredSchedule(schedule, State.ACTIVE, digest, first(schedule, now), 0));
                }
                State state = (stored.state() == State.UNDECLARED) ? State.ACTIVE : stored.state();
                if (digest.equals(stored.declaration())) {
                    // applied before: what changed since was changed at run time, and stays
                    return (state == stored.state()) ? Outcome.UNCHANGED : setState(stored, state, now);
                }
                return redefine(stored, schedule, digest, state, now);
            });
        }
        Set<String> names = declared.stream().map(TaskSchedule::getName).collect(Collectors.toSet());
        for (StoredSchedule stored : this.store.findAll()) {
            if (stored.declaration() != null && !names.contains(stored.name()) && stored.state() == State.ACTIVE) {
                boolean paused = change(stored.name(), "pause", (again, now) -> (again != null && again.declaration()
                        != null && again.state() == State.ACTIVE) ? setState(again, State.UNDECLARED, now)
                                : Outcome.UNCHANGED);
                if (paused) {
                    logger.warn("Schedule '" + stored.name() + "' was declared in code, but this application does "
                            + "not declare it: it is paused. Declare it again, or remove it with "
                            + "DelayTaskService.removeSchedule (or the delaytasks endpoint)");
                }
            }
        }
    }

    /** {@link DelayTaskService#pauseSchedule}. */
    public boolean pause(String name) {
        return change(name, "pause", (stored, now) -> (stored != null && stored.state() == State.ACTIVE)
                ? setState(stored, State.PAUSED, now) : Outcome.UNCHANGED);
    }

    /** {@link DelayTaskService#resumeSchedule}. */
    public boolean resume(String name) {
        return keptAfter(name, change(name, "resume", (stored, now) -> (stored != null
                && stored.state() != State.ACTIVE) ? setState(stored, State.ACTIVE, now) : Outcome.UNCHANGED));
    }

    /**
     * Store the tasks of a schedule just saved or resumed, once its change committed, rather than at the next look:
     * the change stands whether this works or not, and the next look does it otherwise.
     */
    private boolean keptAfter(String name, boolean changed) {
        if (changed) {
            try {
                long now = this.clock.millis();
                StoredSchedule stored = this.store.find(name);
                if (stored != null && stored.state() == State.ACTIVE && stored.nextTime() <= now + this.horizon) {
                    keep(stored, now);
                }
            }
            catch (RuntimeException ex) {
                logger.warn("Could not store the first tasks of schedule '" + name + "'; the next look does", ex);
            }
        }
        return changed;
    }

    /** {@link DelayTaskService#removeSchedule}. */
    public boolean remove(String name) {
        return change(name, "remove", (stored, now) -> {
            if (stored == null) {
                return Outcome.UNCHANGED;
            }
            if (!this.store.delete(stored.name(), stored.version())) {
                return Outcome.LOST;
            }
            if (stored.state() == State.ACTIVE) {
                cancelPending(stored, now);
            }
            return Outcome.CHANGED;
        });
    }

    /** {@link DelayTaskService#findSchedules}. */
    public List<ScheduleDetails> findAll() {
        return dataAccess(() -> this.store.findAll().stream().map(Schedules::details).toList(),
                "read the schedules");
    }

    /** {@link DelayTaskService#findSchedule}: the schedule of the name, or null. */
    public @Nullable ScheduleDetails find(String name) {
        Assert.notNull(name, "Name must not be null");
        return dataAccess(() -> {
            StoredSchedule stored = this.store.find(name);
            return (stored != null) ? details(stored) : null;
        }, "read the schedule '" + name + "'");
    }

    private static ScheduleDetails details(StoredSchedule stored) {
        return new ScheduleDetails(stored.schedule(), stored.state() != State.ACTIVE,
                Instant.ofEpochMilli(Math.min(stored.nextTime(), DelayTask.MAX_EXECUTE_TIME)),
                stored.declaration() != null);
    }

    /**
     * Store the tasks of the due schedules' times, up to the horizon ahead, each schedule in a transaction of its
     * own: a schedule another instance got to first is left to it.
     * @return how many tasks were stored, or found stored already
     */
    public int keep() {
        long now = this.clock.millis();
        int stored = 0;
        for (StoredSchedule due : this.store.findDue(now + this.horizon)) {
            try {
                stored += keep(due, now);
            }
            catch (RuntimeException ex) {
                logger.warn("Could not store the tasks of schedule '" + due.name() + "'; the next look tries again",
                        ex);
            }
        }
        return stored;
    }

    private int keep(StoredSchedule due, long now) {
        // as long as the horizon: a time looked at later than that was missed, not just late
        ScheduleRound round = ScheduleRound.of(due, now, this.horizon, this.horizon);
        boolean mine = this.store.inTransaction(() -> {
            if (!this.store.update(due.withNextTime(round.nextTime()))) {
                return false;
            }
            if (!round.times().isEmpty()) {
                this.tasks.add(round.times().stream().map((time) -> task(due.schedule(), time)).toList());
            }
            return true;
        });
        if (mine && round.missed() > 0) {
            String missed = (round.missed() > ScheduleRound.MAX_CATCH_UP) ? "more than "
                    + ScheduleRound.MAX_CATCH_UP + " times" : round.missed() + ((round.missed() > 1) ? " times"
                            : " time");
            logger.warn("Schedule '" + due.name() + "' missed " + missed + " from " + Instant.ofEpochMilli(
                    due.nextTime()) + " (no instance stored their tasks); as its catch-up is "
                    + due.schedule().getCatchUp() + ", " + round.stored() + " of them "
                    + ((round.stored() == 1) ? "runs" : "run") + " now");
        }
        return mine ? round.times().size() : 0;
    }

    private static DelayTask task(TaskSchedule schedule, long time) {
        DelayTask task = new DelayTask(schedule.getTaskType(), schedule.getPriority(), time,
                schedule.getParameters());
        task.setBizKey(TaskSchedule.bizKeyOf(schedule.getName(), time));
        return task;
    }

    /** A new definition: it goes on from its first time after now, and the tasks of the old one still to come go. */
    private Outcome redefine(StoredSchedule stored, TaskSchedule schedule, @Nullable String declaration,
            State state, long now) {
        boolean moved = !stored.schedule().equals(schedule) || state != stored.state();
        long next = moved ? first(schedule, now) : stored.nextTime();
        if (!this.store.update(new StoredSchedule(schedule, state, declaration, next, stored.version()))) {
            return Outcome.LOST;
        }
        if (moved && stored.state() == State.ACTIVE) {
            cancelPending(stored, now);
        }
        return Outcome.CHANGED;
    }

    /**
     * Store a new schedule at a version of its own: a look that read the schedule of the same name before it was
     * removed must not take this one for it.
     */
    private Outcome inserted(StoredSchedule schedule) {
        int version = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE / 2);
        return this.store.insert(new StoredSchedule(schedule.schedule(), schedule.state(), schedule.declaration(),
                schedule.nextTime(), version)) ? Outcome.CHANGED : Outcome.LOST;
    }

    /** Pause (and cancel the tasks still to come), or resume from the first time after now. */
    private Outcome setState(StoredSchedule stored, State state, long now) {
        long next = (state == State.ACTIVE) ? new ScheduleTimes(stored.schedule(), stored.nextTime()).after(now)
                : stored.nextTime();
        if (!this.store.update(new StoredSchedule(stored.schedule(), state, stored.declaration(), next,
                stored.version()))) {
            return Outcome.LOST;
        }
        if (stored.state() == State.ACTIVE) {
            cancelPending(stored, now);
        }
        return Outcome.CHANGED;
    }

    private void cancelPending(StoredSchedule stored, long now) {
        for (long time : ScheduleRound.pending(stored, now)) {
            this.tasks.cancel(TaskSchedule.bizKeyOf(stored.name(), time));
        }
    }

    private static long first(TaskSchedule schedule, long now) {
        return ScheduleTimes.startingAt(schedule, now).after(now);
    }

    /**
     * Read the schedule and change it in one transaction, again while another change got there first.
     * @return what the change returned
     */
    private boolean change(String name, String what, Change change) {
        Assert.hasText(name, "Schedule name must not be empty");
        for (int i = 0; i < TRIES; i++) {
            // a change that lost a race to another wrote nothing, and tries again on what the other left
            Outcome outcome = dataAccess(() -> this.store.inTransaction(
                    () -> change.apply(this.store.find(name), this.clock.millis())), what + " schedule '" + name + "'");
            if (outcome != Outcome.LOST) {
                return outcome == Outcome.CHANGED;
            }
        }
        throw new DelayTaskException("Could not " + what + " schedule '" + name + "': it was changed by others "
                + TRIES + " times meanwhile");
    }

    private <T> T dataAccess(Supplier<T> access, String what) {
        try {
            return access.get();
        }
        catch (DataAccessException | TransactionException ex) {
            throw new DelayTaskException("Could not " + what + missingSchema(), ex);
        }
    }

    /** What the schema lacks for schedules, for the message of a failure: a schema of an earlier version, often. */
    private String missingSchema() {
        try {
            List<String> missing = this.store.missingSchema();
            return missing.isEmpty() ? "" : ": the delay-task schema lacks the " + missing.get(0);
        }
        catch (DataAccessException ex) {
            return "";
        }
    }

    /** The digest of a declaration in code, by which a start-up sees whether it changed since it was applied. */
    static String digest(TaskSchedule schedule) {
        String text = String.join("\n", schedule.getName(), String.valueOf(schedule.getCron()),
                String.valueOf(schedule.getZone()), String.valueOf(schedule.getInterval()),
                String.valueOf(schedule.getTaskType()), String.valueOf(schedule.getPriority()),
                (schedule.getParameters() != null) ? Base64.getEncoder().encodeToString(schedule.getParameters())
                        : "-", schedule.getCatchUp().name());
        return DigestUtils.md5DigestAsHex(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Where the tasks of the schedules' times are added and cancelled: the service's own calls. */
    public interface Tasks {

        /** Add the tasks in the caller's transaction, as {@link DelayTaskService#addTasks}. */
        void add(List<DelayTask> tasks);

        /** Cancel the live task of the business key if it has not started, as {@link DelayTaskService#cancelTask}. */
        void cancel(String bizKey);

        static Tasks of(DelayTaskService service) {
            return new Tasks() {

                @Override
                public void add(List<DelayTask> tasks) {
                    service.addTasks(tasks);
                }

                @Override
                public void cancel(String bizKey) {
                    service.cancelTask(bizKey);
                }

            };
        }

    }

    @FunctionalInterface
    private interface Change {

        Outcome apply(@Nullable StoredSchedule stored, long now);

    }

    private enum Outcome {

        CHANGED,

        UNCHANGED,

        /** Another change of the schedule got there first: its version moved on, or its name was taken. */
        LOST

    }

}
