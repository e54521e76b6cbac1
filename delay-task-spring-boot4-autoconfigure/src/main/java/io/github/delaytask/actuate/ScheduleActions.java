package io.github.delaytask.actuate;

import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import io.github.delaytask.DelayTaskService;
import io.github.delaytask.ScheduleDetails;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.actuate.DelayTasksEndpoint.ChangeStatus;
import io.github.delaytask.actuate.DelayTasksEndpoint.ScheduleChangeDescriptor;
import io.github.delaytask.actuate.DelayTasksEndpoint.ScheduleDescriptor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.lang.Nullable;

/**
 * The recurring schedules as the {@code delaytasks} endpoint shows and changes them.
 */
final class ScheduleActions {

    private static final Log logger = LogFactory.getLog(ScheduleActions.class);

    private final DelayTaskService service;

    private final Supplier<Map<Integer, String>> names;

    /**
     * @param names the readable names of the task types this instance listens to
     */
    ScheduleActions(DelayTaskService service, Supplier<Map<Integer, String>> names) {
        this.service = service;
        this.names = names;
    }

    /**
     * Every stored schedule, or {@code null} where none can be read: a schema without their table, or a service
     * without schedules; the rest of the overview is shown all the same.
     */
    @Nullable
    List<ScheduleDescriptor> list() {
        try {
            Map<Integer, String> names = this.names.get();
            return this.service.findSchedules().stream().map((schedule) -> describe(schedule, names)).toList();
        }
        catch (RuntimeException ex) {
            if (logger.isDebugEnabled()) {
                logger.debug("The delaytasks endpoint shows no schedules: they could not be read", ex);
            }
            return null;
        }
    }

    /**
     * Pause, resume or remove a schedule, on every instance.
     * @return the outcome, or {@code null} if no schedule has the name
     */
    @Nullable
    ScheduleChangeDescriptor change(String name, String action, @Nullable String executeTime) {
        if (!DelayTasksEndpoint.PAUSE.equals(action) && !DelayTasksEndpoint.RESUME.equals(action)
                && !DelayTasksEndpoint.REMOVE.equals(action)) {
            return new ScheduleChangeDescriptor(name, action, ChangeStatus.INVALID_REQUEST, null, "unknown action '"
                    + action + "'; the actions of a schedule are \"" + DelayTasksEndpoint.PAUSE + "\", \""
                    + DelayTasksEndpoint.RESUME + "\" and \"" + DelayTasksEndpoint.REMOVE + "\"");
        }
        if (executeTime != null) {
            return new ScheduleChangeDescriptor(name, action, ChangeStatus.INVALID_REQUEST, null,
                    "executeTime goes with a task's \"" + DelayTasksEndpoint.RESCHEDULE + "\" only");
        }
        if (find(name) == null) {
            return null;
        }
        boolean changed = switch (action) {
            case DelayTasksEndpoint.PAUSE -> this.service.pauseSchedule(name);
            case DelayTasksEndpoint.RESUME -> this.service.resumeSchedule(name);
            default -> this.service.removeSchedule(name);
        };
        ScheduleDetails after = find(name);
        return new ScheduleChangeDescriptor(name, action, changed ? ChangeStatus.CHANGED : ChangeStatus.UNCHANGED,
                (after != null) ? describe(after, this.names.get()) : null, null);
    }

    private static ScheduleDescriptor describe(ScheduleDetails schedule, Map<Integer, String> names) {
        return ScheduleDescriptor.of(schedule, names.get(schedule.schedule().getTaskType()));
    }

    /**
     * Store a schedule, or change the stored one of its name, on every instance.
     * @param interval an interval as Boot reads one ({@code 5m}, {@code PT5M}), or {@code null} for a cron expression
     * @param priority {@code null} keeps the stored schedule's, or 0 for a new one
     * @param parameters UTF-8 text, empty for none; {@code null} keeps those of the stored schedule
     * @param catchUp {@code ONCE}, {@code EACH} or {@code SKIP}; {@code null} keeps the stored schedule's, or
     * {@code ONCE} for a new one
     */
    ScheduleChangeDescriptor save(String name, @Nullable String cron, @Nullable String zone, @Nullable String interval,
            @Nullable Integer taskType, @Nullable Integer priority, @Nullable String parameters,
            @Nullable String catchUp) {
        boolean changed;
        try {
            changed = this.service.saveSchedule(definition(name, cron, zone, interval, taskType, priority,
                    parameters, catchUp));
        }
        catch (IllegalArgumentException | DateTimeException ex) {
            return new ScheduleChangeDescriptor(name, DelayTasksEndpoint.SAVE, ChangeStatus.INVALID_REQUEST, null,
                    ex.getMessage());
        }
        ScheduleDetails after = find(name);
        return new ScheduleChangeDescriptor(name, DelayTasksEndpoint.SAVE,
                changed ? ChangeStatus.CHANGED : ChangeStatus.UNCHANGED,
                (after != null) ? describe(after, this.names.get()) : null, null);
    }

    private TaskSchedule definition(String name, @Nullable String cron, @Nullable String zone,
            @Nullable String interval, @Nullable Integer taskType, @Nullable Integer priority,
            @Nullable String parameters, @Nullable String catchUp) {
        if ((cron == null) == (interval == null)) {
            throw new IllegalArgumentException("a schedule has either a \"cron\" expression (with its \"zone\") or an "
                    + "\"interval\", such as \"5m\"");
        }
        if (taskType == null) {
            throw new IllegalArgumentException("a schedule needs the \"taskType\" of its tasks");
        }
        TaskSchedule.Builder builder;
        if (cron != null) {
            if (zone == null) {
                throw new IllegalArgumentException("a cron expression needs the \"zone\" it is read in, such as "
                        + "\"Asia/Shanghai\"");
            }
            builder = TaskSchedule.cron(name, cron, ZoneId.of(zone));
        }
        else {
            builder = TaskSchedule.every(name, DurationStyle.detectAndParse(interval));
        }
        // what a change leaves out stays as stored
        TaskSchedule stored = (priority == null || catchUp == null || parameters == null) ? storedSchedule(name) : null;
        int storedPriority = (stored != null) ? stored.getPriority() : 0;
        builder.taskType(taskType).priority((priority != null) ? priority : storedPriority);
        if (catchUp != null) {
            builder.catchUp(catchUpOf(catchUp));
        }
        else if (stored != null) {
            builder.catchUp(stored.getCatchUp());
        }
        if (parameters != null) {
            builder.parameters(parameters.isEmpty() ? null : parameters.getBytes(StandardCharsets.UTF_8));
        }
        else {
            builder.parameters((stored != null) ? stored.getParameters() : null);
        }
        return builder.build();
    }

    @Nullable
    private TaskSchedule storedSchedule(String name) {
        ScheduleDetails stored = find(name);
        return (stored != null) ? stored.schedule() : null;
    }

    private static TaskSchedule.CatchUp catchUpOf(String catchUp) {
        try {
            return TaskSchedule.CatchUp.valueOf(catchUp.toUpperCase(Locale.ROOT));
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("catchUp '" + catchUp + "' is none of \"ONCE\", \"EACH\" and \"SKIP\"");
        }
    }

    @Nullable
    private ScheduleDetails find(String name) {
        return this.service.findSchedule(name).orElse(null);
    }

}
