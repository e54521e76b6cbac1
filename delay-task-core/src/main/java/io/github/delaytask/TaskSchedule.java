package io.github.delaytask;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.Assert;

/**
 * A recurring schedule, stored in the database: at each of its times an ordinary task of its type and priority is
 * added, whose business key names the schedule and the time ({@code schedule:nightly-report@2026-12-07T03:00:00Z}),
 * so that each time runs once across the cluster and shows in history, metrics, retries and {@code DEAD} like any
 * task.
 * <p>
 * Declare one as a bean to have every instance store it at start-up (idempotently: a changed declaration updates the
 * stored schedule), or save, pause and remove one at run time through {@link DelayTaskService#saveSchedule}:
 * <pre>{@code
 * @Bean
 * TaskSchedule nightlyReport() {
 *     return TaskSchedule.cron("nightly-report", "0 0 3 * * *", ZoneId.of("Asia/Shanghai")).taskType(REPORT).build();
 * }
 * }</pre>
 */
public final class TaskSchedule {

    /** Longest schedule name accepted. */
    public static final int MAX_NAME_LENGTH = 100;

    /** Longest cron expression accepted. */
    public static final int MAX_CRON_LENGTH = 200;

    /** Shortest interval accepted. */
    public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]+");

    private final String name;

    private final @Nullable String cron;

    private final @Nullable ZoneId zone;

    private final @Nullable Duration interval;

    private final int taskType;

    private final int priority;

    private final byte @Nullable [] parameters;

    private final CatchUp catchUp;

    private TaskSchedule(Builder builder) {
        this.name = builder.name;
        this.cron = builder.cron;
        this.zone = builder.zone;
        this.interval = builder.interval;
        this.taskType = builder.taskType;
        this.priority = builder.priority;
        this.parameters = builder.parameters;
        this.catchUp = builder.catchUp;
    }

    /**
     * Start a schedule whose times a cron expression gives, as {@code @Scheduled(cron = ...)} reads it (six fields,
     * seconds first, macros such as {@code @daily}), on the wall clock of the given time zone, each wall-clock time
     * once: in the night the clocks go forward, a time they skip runs at the moment they skip to; in the night they go
     * back, a time they repeat runs at its first coming (an hourly expression then runs once in the repeated hour;
     * a schedule by {@linkplain #every interval} keeps to real time instead).
     * @param name the schedule's name, unique among schedules: 1 to {@link #MAX_NAME_LENGTH} letters, digits, '.',
     * '_', ':' or '-'
     * @param expression the cron expression
     * @param zone the time zone the expression is read in; instances in other zones store the same schedule
     * @throws IllegalArgumentException if the name or the expression is invalid
     */
    public static Builder cron(String name, String expression, ZoneId zone) {
        Assert.hasText(expression, "A cron expression is required");
        Assert.notNull(zone, "A time zone is required");
        Assert.isTrue(expression.trim().length() <= MAX_CRON_LENGTH,
                () -> "Schedule '" + name + "' has a cron expression of over " + MAX_CRON_LENGTH + " characters");
        try {
            CronExpression.parse(expression);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("Schedule '" + name + "' has an invalid cron expression '" + expression
                    + "': " + ex.getMessage(), ex);
        }
        Builder builder = new Builder(name);
        builder.cron = expression.trim();
        builder.zone = zone;
        return builder;
    }

    /**
     * Start a schedule that runs once per interval, the first time one interval after it is first stored; its times
     * keep to that rhythm, however late a run is.
     * @param name the schedule's name, unique among schedules: 1 to {@link #MAX_NAME_LENGTH} letters, digits, '.',
     * '_', ':' or '-'
     * @param interval at least {@link #MIN_INTERVAL}, in whole milliseconds
     * @throws IllegalArgumentException if the name or the interval is invalid
     */
    public static Builder every(String name, Duration interval) {
        Assert.notNull(interval, "An interval is required");
        Assert.isTrue(interval.compareTo(MIN_INTERVAL) >= 0,
                () -> "Schedule '" + name + "' has an interval of " + interval + ": at least " + MIN_INTERVAL);
        Builder builder = new Builder(name);
        builder.interval = Duration.ofMillis(interval.toMillis());
        return builder;
    }

    /** The schedule's name. */
    public String getName() {
        return this.name;
    }

    /** The cron expression, or {@code null} for a schedule by interval. */
    public @Nullable String getCron() {
        return this.cron;
    }

    /** The time zone of the cron expression, or {@code null} for a schedule by interval. */
    public @Nullable ZoneId getZone() {
        return this.zone;
    }

    /** The interval, or {@code null} for a schedule by cron expression. */
    public @Nullable Duration getInterval() {
        return this.interval;
    }

    public int getTaskType() {
        return this.taskType;
    }

    public int getPriority() {
        return this.priority;
    }

    /** The parameters each of its tasks gets, or {@code null} for none. */
    public byte @Nullable [] getParameters() {
        return (this.parameters != null) ? this.parameters.clone() : null;
    }

    public CatchUp getCatchUp() {
        return this.catchUp;
    }

    /**
     * The business key of the task of one of the schedule's times.
     * @param name the schedule's name
     * @param time the time, in epoch milliseconds
     */
    public static String bizKeyOf(String name, long time) {
        return "schedule:" + name + "@" + java.time.Instant.ofEpochMilli(time);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TaskSchedule other)) {
            return false;
        }
        return this.name.equals(other.name) && Objects.equals(this.cron, other.cron)
                && Objects.equals(this.zone, other.zone) && Objects.equals(this.interval, other.interval)
                && this.taskType == other.taskType && this.priority == other.priority
                && Arrays.equals(this.parameters, other.parameters) && this.catchUp == other.catchUp;
    }

    @Override
    public int hashCode() {
        return Objects.hash(this.name, this.cron, this.zone, this.interval, this.taskType, this.priority);
    }

    @Override
    public String toString() {
        return "TaskSchedule{" + this.name + ", " + ((this.cron != null) ? "cron '" + this.cron + "' in " + this.zone
                : "every " + this.interval) + ", taskType=" + this.taskType + ", priority=" + this.priority
                + ", catchUp=" + this.catchUp + "}";
    }

    /** What a schedule does about the times it missed while no instance ran (or while its store was out of reach). */
    public enum CatchUp {

        /** One task for all the missed times, at once; its business key names the first of them. */
        ONCE,

        /** A task for each missed time, at once, up to 1,000 of them; the log says when more were skipped. */
        EACH,

        /** No task for the missed times: the schedule goes on from its next time. */
        SKIP

    }

    /** Builds a {@link TaskSchedule}. */
    public static final class Builder {

        private final String name;

        private @Nullable String cron;

        private @Nullable ZoneId zone;

        private @Nullable Duration interval;

        private int taskType;

        private int priority;

        private byte @Nullable [] parameters;

        private CatchUp catchUp = CatchUp.ONCE;

        private Builder(String name) {
            Assert.isTrue(name != null && name.length() <= MAX_NAME_LENGTH && NAME.matcher(name).matches(),
                    () -> "Schedule name '" + name + "' must be 1 to " + MAX_NAME_LENGTH
                            + " letters, digits, '.', '_', ':' or '-'");
            this.name = name;
        }

        /** The type of the tasks it adds, from 0 to {@link DelayTask#MAX_TYPE}. */
        public Builder taskType(int taskType) {
            Assert.isTrue(taskType >= 0 && taskType <= DelayTask.MAX_TYPE,
                    () -> "Schedule '" + this.name + "' has task type " + taskType + ": 0 to " + DelayTask.MAX_TYPE);
            this.taskType = taskType;
            return this;
        }

        /** The priority of the tasks it adds, from 0 to {@link DelayTask#MAX_PRIORITY}; 0 unless set. */
        public Builder priority(int priority) {
            Assert.isTrue(priority >= 0 && priority <= DelayTask.MAX_PRIORITY, () -> "Schedule '" + this.name
                    + "' has priority " + priority + ": 0 to " + DelayTask.MAX_PRIORITY);
            this.priority = priority;
            return this;
        }

        /** The parameters each of its tasks gets. */
        public Builder parameters(byte @Nullable [] parameters) {
            this.parameters = (parameters != null) ? parameters.clone() : null;
            return this;
        }

        /** The parameters each of its tasks gets, as UTF-8 text. */
        public Builder parameters(String parameters) {
            return parameters(parameters.getBytes(StandardCharsets.UTF_8));
        }

        /** What to do about times missed while no instance ran; {@link CatchUp#ONCE} unless set. */
        public Builder catchUp(CatchUp catchUp) {
            Assert.notNull(catchUp, "A catch-up policy is required");
            this.catchUp = catchUp;
            return this;
        }

        public TaskSchedule build() {
            return new TaskSchedule(this);
        }

    }

}
