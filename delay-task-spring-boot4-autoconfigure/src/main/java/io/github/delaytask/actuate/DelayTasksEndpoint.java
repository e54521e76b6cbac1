package io.github.delaytask.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import io.github.delaytask.DelayTaskException;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.ScheduleDetails;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.QueueOverview.QueueSummary;
import io.github.delaytask.core.QueueOverview;
import io.github.delaytask.scheduling.ReloadRun;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.lang.Nullable;

/**
 * The {@code delaytasks} Actuator endpoint: what each queue holds in Redis and in the database, one task, the dead
 * tasks newest first, the recurring schedules, changes of one task by hand (requeue, cancel, run now, reschedule), of
 * one queue (pause, resume, requeue its dead tasks) and of one schedule (pause, resume, remove).
 * <p>
 * Paths below the endpoint: {@code tasks/{taskId}} (read and change), {@code keys/{businessKey}} (read),
 * {@code dead?page=&size=}, {@code queues/{taskType}/{priority}} (change) and {@code schedules/{name}} (change). A
 * change takes a JSON body, {@code {"action": "reschedule", "executeTime": "2026-12-03T10:00:00Z"}}, which a
 * cross-site form cannot send.
 */
@Endpoint(id = "delaytasks")
public class DelayTasksEndpoint {

    /** The path segment of one task. */
    public static final String TASKS = "tasks";

    /** The path segment of the live task with a business key. */
    public static final String KEYS = "keys";

    /** The path segment of the dead tasks. */
    public static final String DEAD = "dead";

    /** Make a dead task live again, due now. */
    public static final String REQUEUE = "requeue";

    /** Cancel a task no consumer holds, or discard a dead one. */
    public static final String CANCEL = "cancel";

    /** Move a task no consumer holds to now. */
    public static final String RUN_NOW = "run-now";

    /** Move a task no consumer holds to the body's {@code executeTime}. */
    public static final String RESCHEDULE = "reschedule";

    /** The path segment of one queue. */
    public static final String QUEUES = "queues";

    /** Stop claims of a queue on every instance. */
    public static final String PAUSE = "pause";

    /** Let a paused queue's tasks be claimed again. */
    public static final String RESUME = "resume";

    /** Make every dead task of a queue live again, due now. */
    public static final String REQUEUE_DEAD = "requeue-dead";

    /** The path segment of one recurring schedule, which is paused or resumed as a queue is. */
    public static final String SCHEDULES = "schedules";

    /** Remove a recurring schedule. */
    public static final String REMOVE = "remove";

    /** Store a recurring schedule, or change it. */
    public static final String SAVE = "save";

    static final int DEFAULT_PAGE_SIZE = 20;

    private final DelayTaskService service;

    private final QueueOverview overview;

    private final Supplier<@org.jspecify.annotations.Nullable ReloadRun> lastReload;

    private final RecentActivity activity;

    private final Clock clock;

    private final Show showParameters;

    private final Set<String> roles;

    private final ScheduleActions schedules;

    /**
     * An endpoint that shows no task's parameters.
     * @param lastReload the last run of the reload job on this instance, or {@code null} before the first or where
     * the jobs do not run
     * @param activity what this instance ran recently
     */
    public DelayTasksEndpoint(DelayTaskService service, QueueOverview overview,
            Supplier<@org.jspecify.annotations.Nullable ReloadRun> lastReload, RecentActivity activity, Clock clock) {
        this(service, overview, lastReload, activity, clock, Show.NEVER, Set.of());
    }

    /**
     * @param showParameters when a task's parameters are shown: business data, such as an order's, that not every
     * operator may see
     * @param roles the roles that may see them when {@link Show#WHEN_AUTHORIZED}; any authenticated user if none
     */
    public DelayTasksEndpoint(DelayTaskService service, QueueOverview overview,
            Supplier<@org.jspecify.annotations.Nullable ReloadRun> lastReload, RecentActivity activity, Clock clock,
            Show showParameters, Set<String> roles) {
        this.service = service;
        this.overview = overview;
        this.lastReload = lastReload;
        this.activity = activity;
        this.clock = clock;
        this.showParameters = showParameters;
        this.roles = Set.copyOf(roles);
        this.schedules = new ScheduleActions(service, overview::names);
    }

    /** Whether the caller may see tasks' parameters. */
    boolean showsParameters(SecurityContext securityContext) {
        return this.showParameters.isShown(securityContext, this.roles);
    }

    @ReadOperation
    public QueuesDescriptor delayTasks() {
        return new QueuesDescriptor(this.overview.queues(), this.lastReload.get(), this.activity.snapshot(),
                this.schedules.list());
    }

    /**
     * Store a recurring schedule, or change the stored one of its name, on every instance: the body of a
     * {@code POST} to the endpoint itself, such as {@code {"name": "nightly-report", "cron": "0 0 3 * * *",
     * "zone": "Asia/Shanghai", "taskType": 7}} or {@code {"name": "sync-prices", "interval": "5m", "taskType": 8}}.
     * @param name the schedule's name
     * @param cron its cron expression, with {@code zone}; or {@code null} with an {@code interval}
     * @param zone the time zone of its cron expression
     * @param interval its interval ({@code 5m}, {@code PT5M}); or {@code null} with a {@code cron} expression
     * @param taskType the type of its tasks
     * @param priority the priority of its tasks; {@code null} keeps the stored schedule's, or 0 for a new one
     * @param parameters the parameters of its tasks, as UTF-8 text, empty for none; {@code null} keeps those of the
     * stored schedule
     * @param catchUp {@code ONCE}, {@code EACH} or {@code SKIP}; {@code null} keeps the stored schedule's, or
     * {@code ONCE} for a new one
     * @return the outcome, {@code INVALID_REQUEST} with the reason for a definition that is not valid
     */
    @WriteOperation
    public ScheduleChangeDescriptor saveSchedule(String name, @Nullable String cron, @Nullable String zone,
            @Nullable String interval, @Nullable Integer taskType, @Nullable Integer priority,
            @Nullable String parameters, @Nullable String catchUp) {
        return this.schedules.save(name, cron, zone, interval, taskType, priority, parameters, catchUp);
    }

    /**
     * One task, whatever its status, by its id ({@value #TASKS}) or, if it is live, by its business key
     * ({@value #KEYS}). One operation serves both paths, as Actuator maps one read per path shape.
     * @param collection {@value #TASKS} or {@value #KEYS}
     * @param id the task's id, or its business key
     * @return the task, or {@code null} if it is unknown or no live task has the key
     * @throws InvalidEndpointRequestException if a task id is not a number
     */
    @ReadOperation
    @Nullable
    public TaskDescriptor task(SecurityContext securityContext, @Selector String collection, @Selector String id) {
        Optional<TaskDetails> task;
        if (TASKS.equals(collection)) {
            task = this.service.findTask(taskId(id));
        }
        else if (KEYS.equals(collection)) {
            task = this.service.findTask(id);
        }
        else {
            return null;
        }
        boolean parameters = showsParameters(securityContext);
        return task.map((details) -> describe(details, parameters)).orElse(null);
    }

    private TaskDescriptor describe(TaskDetails task, boolean parameters) {
        return describe(task, parameters, this.overview.names());
    }

    private static TaskDescriptor describe(TaskDetails task, boolean parameters, Map<Integer, String> names) {
        return TaskDescriptor.of(task, names.get(task.taskType()), parameters);
    }

    private static long taskId(String id) {
        try {
            return Long.parseLong(id);
        }
        catch (NumberFormatException ex) {
            throw new InvalidEndpointRequestException("task id '" + id + "' is not a number", "Bad task id");
        }
    }

    /**
     * One page of the dead tasks, newest first.
     * @param collection {@value #DEAD}
     * @param page page number, from 0
     * @param size tasks per page, from 1 to 1000
     * @return the page, or {@code null} for another path
     * @throws IllegalArgumentException if the page or its size is out of range
     */
    @ReadOperation
    @Nullable
    public DeadTasksDescriptor deadTasks(SecurityContext securityContext, @Selector String collection,
            @Nullable Integer page, @Nullable Integer size) {
        if (!DEAD.equals(collection)) {
            return null;
        }
        int number = (page != null) ? page : 0;
        int perPage = (size != null) ? size : DEFAULT_PAGE_SIZE;
        boolean parameters = showsParameters(securityContext);
        Map<Integer, String> names = this.overview.names();
        List<TaskDescriptor> tasks = this.service.findDeadTasksNewestFirst(number, perPage, parameters)
            .stream()
            .map((task) -> describe(task, parameters, names))
            .toList();
        return new DeadTasksDescriptor(number, perPage, tasks);
    }

    /**
     * Changes one task ({@value #TASKS}) or one recurring schedule ({@value #SCHEDULES}) by hand. One operation
     * serves both paths, as Actuator maps one write per path shape.
     * @param collection {@value #TASKS} or {@value #SCHEDULES}
     * @param id the task's id, or the schedule's name
     * @param action for a task {@value #REQUEUE}, {@value #CANCEL}, {@value #RUN_NOW} or {@value #RESCHEDULE}; for a
     * schedule {@value #PAUSE}, {@value #RESUME} or {@value #REMOVE}
     * @param executeTime the new execute time, ISO-8601, for {@value #RESCHEDULE} only
     * @return a {@link ChangeDescriptor} or a {@link ScheduleChangeDescriptor}, or {@code null} if the task or the
     * schedule is unknown
     * @throws InvalidEndpointRequestException if a task id is not a number
     */
    @WriteOperation
    @Nullable
    public OperationResponseBody change(SecurityContext securityContext, @Selector String collection,
            @Selector String id, String action, @Nullable String executeTime) {
        if (TASKS.equals(collection)) {
            return changeTask(securityContext, taskId(id), action, executeTime);
        }
        return SCHEDULES.equals(collection) ? this.schedules.change(id, action, executeTime) : null;
    }

    @Nullable
    private ChangeDescriptor changeTask(SecurityContext securityContext, long taskId, String action,
            @Nullable String executeTime) {
        boolean parameters = showsParameters(securityContext);
        Instant newTime;
        try {
            newTime = newExecuteTime(action, executeTime);
        }
        catch (IllegalArgumentException ex) {
            return invalid(taskId, action, ex.getMessage());
        }
        Optional<TaskDetails> before = this.service.findTask(taskId);
        if (before.isEmpty()) {
            return null;
        }
        String refusal = whyNot(before.get(), action);
        if (refusal != null) {
            return new ChangeDescriptor(taskId, action, ChangeStatus.NOT_ALLOWED, describe(before.get(), parameters),
                    refusal);
        }
        boolean changed;
        try {
            changed = apply(taskId, action, newTime);
        }
        catch (IllegalArgumentException ex) {
            return invalid(taskId, action, ex.getMessage());
        }
        catch (DelayTaskException ex) {
            // a live task with the same business key; any other failure is the server's
            if (!(ex.getCause() instanceof DuplicateKeyException)) {
                throw ex;
            }
            return new ChangeDescriptor(taskId, action, ChangeStatus.NOT_ALLOWED, describe(before.get(), parameters),
                    ex.getMessage());
        }
        this.overview.changed();
        Optional<TaskDetails> after = this.service.findTask(taskId);
        if (changed) {
            return new ChangeDescriptor(taskId, action, ChangeStatus.CHANGED,
                    after.map((task) -> describe(task, parameters)).orElse(null), null);
        }
        // the task changed between the look and the change: a consumer took it, or it finished
        TaskDetails now = after.orElse(before.get());
        String reason = whyNot(now, action);
        return new ChangeDescriptor(taskId, action, ChangeStatus.NOT_ALLOWED, describe(now, parameters),
                (reason != null) ? reason : "task " + taskId + " is running: a consumer holds it, so it cannot be "
                        + pastTense(action) + " until its run ends");
    }

    /**
     * Changes one queue by hand, on every instance.
     * @param collection {@value #QUEUES}
     * @param taskType the queue's task type
     * @param priority the queue's priority
     * @param action {@value #PAUSE}, {@value #RESUME} or {@value #REQUEUE_DEAD}
     * @return the outcome, or {@code null} if the cluster knows no such queue (a pause needs none: a queue may be
     * paused before it is used)
     */
    @WriteOperation
    @Nullable
    public QueueChangeDescriptor changeQueue(@Selector String collection, @Selector int taskType,
            @Selector int priority, String action) {
        if (!QUEUES.equals(collection)) {
            return null;
        }
        if (!PAUSE.equals(action) && !RESUME.equals(action) && !REQUEUE_DEAD.equals(action)) {
            return new QueueChangeDescriptor(taskType, priority, action, ChangeStatus.INVALID_REQUEST, null, 0,
                    "unknown action '" + action + "'; the actions of a queue are \"" + PAUSE + "\", \"" + RESUME
                            + "\" and \"" + REQUEUE_DEAD + "\"");
        }
        try {
            // refuses a type or priority out of range
            this.service.isQueuePaused(taskType, priority);
        }
        catch (IllegalArgumentException ex) {
            return new QueueChangeDescriptor(taskType, priority, action, ChangeStatus.INVALID_REQUEST, null, 0,
                    ex.getMessage());
        }
        // a queue may be paused before any instance has its tasks or a listener for it: an operator holding off a
        // downstream must not depend on which instance the request reaches
        if (!PAUSE.equals(action) && !this.overview.known(new QueueId(taskType, priority))) {
            return null;
        }
        int requeued = 0;
        boolean changed = switch (action) {
            case PAUSE -> this.service.pauseQueue(taskType, priority);
            case RESUME -> this.service.resumeQueue(taskType, priority);
            default -> {
                requeued = this.service.requeueDeadTasks(taskType, priority);
                yield requeued > 0;
            }
        };
        // the page that asked looks again at once, and must see what it did
        this.overview.changed();
        return new QueueChangeDescriptor(taskType, priority, action,
                changed ? ChangeStatus.CHANGED : ChangeStatus.UNCHANGED, this.service.isQueuePaused(taskType, priority),
                requeued, null);
    }

    @Nullable
    private Instant newExecuteTime(String action, @Nullable String executeTime) {
        if (RESCHEDULE.equals(action)) {
            if (executeTime == null) {
                throw new IllegalArgumentException("\"" + RESCHEDULE + "\" needs an executeTime, such as "
                        + "\"2026-12-03T10:00:00Z\"");
            }
            try {
                return Instant.parse(executeTime);
            }
            catch (DateTimeParseException ex) {
                throw new IllegalArgumentException("executeTime '" + executeTime + "' is not an ISO-8601 instant, "
                        + "such as \"2026-12-03T10:00:00Z\"");
            }
        }
        if (!REQUEUE.equals(action) && !CANCEL.equals(action) && !RUN_NOW.equals(action)) {
            throw new IllegalArgumentException("unknown action '" + action + "'; the actions are \"" + REQUEUE
                    + "\", \"" + CANCEL + "\", \"" + RUN_NOW + "\" and \"" + RESCHEDULE + "\"");
        }
        if (executeTime != null) {
            throw new IllegalArgumentException("executeTime goes with \"" + RESCHEDULE + "\" only");
        }
        return null;
    }

    @Nullable
    private static String whyNot(TaskDetails task, String action) {
        if (REQUEUE.equals(action)) {
            return (task.status() != TaskStatus.DEAD) ? "task " + task.taskId() + " is " + task.status()
                    + "; only a DEAD task can be requeued" : null;
        }
        if (task.status() == TaskStatus.SCHEDULED || (CANCEL.equals(action) && task.status() == TaskStatus.DEAD)) {
            return null;
        }
        String reason = "task " + task.taskId() + " is " + task.status() + "; only a SCHEDULED task can be "
                + pastTense(action);
        return (task.status() == TaskStatus.DEAD) ? reason + " (requeue it first)" : reason;
    }

    private static String pastTense(String action) {
        return switch (action) {
            case CANCEL -> "cancelled";
            case RUN_NOW -> "run now";
            case RESCHEDULE -> "rescheduled";
            default -> "requeued";
        };
    }

    private boolean apply(long taskId, String action, @Nullable Instant executeTime) {
        return switch (action) {
            case REQUEUE -> this.service.requeueTask(taskId);
            case CANCEL -> this.service.cancelTask(taskId);
            case RUN_NOW -> this.service.rescheduleTask(taskId, this.clock.instant());
            default -> this.service.rescheduleTask(taskId, executeTime);
        };
    }

    private static ChangeDescriptor invalid(long taskId, String action, @Nullable String reason) {
        return new ChangeDescriptor(taskId, action, ChangeStatus.INVALID_REQUEST, null, reason);
    }

    /**
     * Every queue known to the cluster, and the recurring schedules.
     * @param queues the queues, by task type then priority
     * @param lastReload the last run of the reload job on this instance, or {@code null}
     * @param activity what this instance ran over the last minutes
     * @param schedules the stored schedules, by name, or {@code null} where they cannot be read (a schema without
     * their table)
     */
    public record QueuesDescriptor(List<QueueSummary> queues, @Nullable ReloadRun lastReload,
            RecentActivity.Activity activity, @Nullable List<ScheduleDescriptor> schedules)
            implements OperationResponseBody {
    }

    /**
     * A stored recurring schedule.
     * @param name its name
     * @param cron its cron expression, or {@code null} for an interval
     * @param zone the time zone of its cron expression, or {@code null}
     * @param interval its interval, or {@code null} for a cron expression
     * @param taskType the type of its tasks
     * @param priority the priority of its tasks
     * @param catchUp what it does about times missed
     * @param paused whether it adds no task
     * @param nextTime the first of its times whose task is not stored yet
     * @param declaredInCode whether a {@code TaskSchedule} bean declared it
     * @param taskName the task type's readable name, or {@code null} if no listener of this instance names it
     */
    public record ScheduleDescriptor(String name, @Nullable String cron, @Nullable String zone,
            @Nullable Duration interval, int taskType, int priority, TaskSchedule.CatchUp catchUp, boolean paused,
            Instant nextTime, boolean declaredInCode, @Nullable String taskName) implements OperationResponseBody {

        static ScheduleDescriptor of(ScheduleDetails details, @Nullable String taskName) {
            TaskSchedule schedule = details.schedule();
            return new ScheduleDescriptor(schedule.getName(), schedule.getCron(),
                    (schedule.getZone() != null) ? schedule.getZone().getId() : null, schedule.getInterval(),
                    schedule.getTaskType(), schedule.getPriority(), schedule.getCatchUp(), details.paused(),
                    details.nextTime(), details.declaredInCode(), taskName);
        }

    }

    /**
     * The outcome of a change of a recurring schedule by hand.
     * @param name the schedule's name
     * @param action the action asked for
     * @param status what happened
     * @param schedule the schedule after the change, or {@code null} once removed or for an invalid request
     * @param reason why the request was refused, or {@code null}
     */
    public record ScheduleChangeDescriptor(String name, String action, ChangeStatus status,
            @Nullable ScheduleDescriptor schedule, @Nullable String reason) implements OperationResponseBody {
    }

    /**
     * One page of dead tasks, newest first.
     * @param page the page number
     * @param size the page size
     * @param tasks the tasks, each with its last error
     */
    public record DeadTasksDescriptor(int page, int size, List<TaskDescriptor> tasks) implements OperationResponseBody {
    }

    /**
     * What the database holds of a task.
     * @param taskId the id
     * @param taskType the task type
     * @param priority the priority
     * @param executeTime when it is or was due
     * @param status its status
     * @param attempts how many runs it had
     * @param lastError the error of its last failed run, or {@code null}
     * @param bizKey its business key, or {@code null}
     * @param parameters its parameters, or {@code null} (none, or not shown to the caller); base64 in JSON
     * @param taskName the task type's readable name, or {@code null} if no listener of this instance names it
     */
    public record TaskDescriptor(long taskId, int taskType, int priority, Instant executeTime, TaskStatus status,
            int attempts, @Nullable String lastError, @Nullable String bizKey,
            byte @org.jspecify.annotations.Nullable [] parameters, @Nullable String taskName)
            implements OperationResponseBody {

        static TaskDescriptor of(TaskDetails task, @Nullable String taskName, boolean withParameters) {
            return new TaskDescriptor(task.taskId(), task.taskType(), task.priority(), task.executeTime(),
                    task.status(), task.attempts(), task.lastError(), task.bizKey(),
                    withParameters ? task.parameters() : null, taskName);
        }

    }

    /**
     * The outcome of a change by hand.
     * @param taskId the task's id
     * @param action the action asked for
     * @param status what happened
     * @param task the task after the change, or as it is when the change was refused; {@code null} for an invalid
     * request
     * @param reason why nothing changed, or {@code null}
     */
    public record ChangeDescriptor(long taskId, String action, ChangeStatus status, @Nullable TaskDescriptor task,
            @Nullable String reason) implements OperationResponseBody {
    }

    /**
     * The outcome of a change of a queue by hand.
     * @param taskType the queue's task type
     * @param priority the queue's priority
     * @param action the action asked for
     * @param status what happened
     * @param paused whether the queue is paused now, or {@code null} for an invalid request
     * @param requeued how many dead tasks were requeued
     * @param reason why the request was refused, or {@code null}
     */
    public record QueueChangeDescriptor(int taskType, int priority, String action, ChangeStatus status,
            @Nullable Boolean paused, int requeued, @Nullable String reason) implements OperationResponseBody {
    }

    /**
     * What happened to a change by hand.
     */
    public enum ChangeStatus {

        /** The task, queue or schedule changed. */
        CHANGED,

        /** The queue or schedule was as asked already: paused, not paused, or without dead tasks to requeue. */
        UNCHANGED,

        /** The task's state does not allow the action. */
        NOT_ALLOWED,

        /** The body asked for no known action, or its execute time is missing or wrong. */
        INVALID_REQUEST

    }

}
