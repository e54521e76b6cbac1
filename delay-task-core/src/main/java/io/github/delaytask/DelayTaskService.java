package io.github.delaytask;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * Adds, cancels and takes delayed tasks. The starter provides one as a bean.
 * <p>
 * A task is stored in the database first, inside the caller's transaction when there is one; Redis learns of it
 * only after that commits, so a rolled-back task never runs. Due tasks of a type and priority with a
 * {@link DelayTaskListener} run on one instance of the application; tasks of other types wait for
 * {@link #poll(int, int)}.
 */
public interface DelayTaskService {

    /**
     * Store a task to run at its execute time (or after its delay). A task due in the past runs at once. When the
     * task has a {@linkplain DelayTask#getBizKey() business key} that a live task already has, nothing is stored and
     * that task's id is returned; the database's unique index makes this hold for concurrent adds too.
     * @param task the task; its id is set on return
     * @return the task's id
     * @throws IllegalArgumentException if the task is null or its type, priority, execute time, delay, business key
     * or parameters are out of range
     * @throws DelayTaskException if the task could not be stored (the database is unreachable, or a task with its
     * explicit id exists); nothing of it is kept then
     */
    long addTask(DelayTask task);

    /**
     * Store many tasks at once: one database transaction (the caller's, if any) and one Redis call per queue. Each
     * task is treated as by {@link #addTask(DelayTask)}.
     * @param tasks the tasks; their ids are set on return
     * @return the tasks' ids, in order
     * @throws IllegalArgumentException if any task is invalid; nothing is stored then
     * @throws DelayTaskException if the tasks could not be stored; none of them is kept then
     */
    List<Long> addTasks(List<DelayTask> tasks);

    /**
     * Add a task with a business key, or, if a live task has the key and has not started, replace that task's
     * execute time and parameters with the given task's, keeping its id ("the last one wins": a digest sent a while
     * after the last change, a reminder moved with new details). {@link #addTask} keeps the first instead.
     * <p>
     * A replaced task fires at its new time only, with its new parameters; it keeps its attempts. Concurrent calls for
     * one key, on any instance, leave one task carrying one of the calls' time and parameters whole. A task that has
     * started (a consumer holds it) is never replaced: the call then changes nothing and returns its id, and
     * {@link #findTask(long)} tells whether it ran. Within a caller's transaction the replacement commits with it.
     * @param task the task; its business key is required, and an id of its own is not allowed
     * @return the id of the task added or replaced, also set on {@code task}
     * @throws IllegalArgumentException if the task has no business key, or has an id
     * @throws DelayTaskException if the database could not be read or written
     */
    default long addOrReplaceTask(DelayTask task) {
        throw new UnsupportedOperationException("addOrReplaceTask is not supported by " + getClass().getName());
    }

    /**
     * Cancel a task that has not started running, or discard a {@link TaskStatus#DEAD} one: either way its status
     * becomes {@link TaskStatus#CANCELLED}, and a dead task is no longer listed, counted or requeued as dead.
     * @param taskId the task's id
     * @return {@code true} if this call cancelled it; {@code false} if the id is unknown or the task already ran,
     * is running or was cancelled
     */
    boolean cancelTask(long taskId);

    /**
     * Cancel the live task with the given business key, if no consumer has taken it.
     * @param bizKey the business key
     * @return {@code true} if this call cancelled it
     */
    boolean cancelTask(String bizKey);

    /**
     * Look a task up, whatever its status.
     * @param taskId the task's id
     * @return what the database holds of it, or empty if the id is unknown
     */
    Optional<TaskDetails> findTask(long taskId);

    /**
     * Look up the live task with the given business key: the one a new task with that key would clash with.
     * @param bizKey the business key
     * @return what the database holds of it, or empty if no live task has the key; a task that finished between the
     * look-up by key and the read of its details is returned as it is then
     */
    Optional<TaskDetails> findTask(String bizKey);

    /**
     * List the tasks whose handler failed on every attempt, oldest first.
     * @param page page number, from 0
     * @param size tasks per page, from 1 to 1000
     * @return one page of dead tasks
     * @throws IllegalArgumentException if the page or its size is out of range
     */
    List<TaskDetails> findDeadTasks(int page, int size);

    /**
     * List the tasks whose handler failed on every attempt, newest first: by id, so the latest added first.
     * @param page page number, from 0
     * @param size tasks per page, from 1 to 1000
     * @return one page of dead tasks
     * @throws IllegalArgumentException if the page or its size is out of range
     */
    List<TaskDetails> findDeadTasksNewestFirst(int page, int size);

    /**
     * List the tasks whose handler failed on every attempt, newest first, with or without their parameters: a page
     * for someone who is not shown parameters need not read up to a thousand of them.
     * @param page page number, from 0
     * @param size tasks per page, from 1 to 1000
     * @param parameters whether to read the tasks' parameters; without, {@link TaskDetails#parameters()} is null
     * @return one page of dead tasks
     * @throws IllegalArgumentException if the page or its size is out of range
     */
    default List<TaskDetails> findDeadTasksNewestFirst(int page, int size, boolean parameters) {
        List<TaskDetails> tasks = findDeadTasksNewestFirst(page, size);
        return parameters ? tasks : tasks.stream()
            .map((task) -> new TaskDetails(task.taskId(), task.taskType(), task.priority(), task.executeTime(),
                    task.status(), task.attempts(), task.lastError(), task.bizKey(), null))
            .toList();
    }

    /**
     * Run a dead task again, now, with its attempts counted from zero.
     * @param taskId the task's id
     * @return {@code false} if the task is unknown or not dead
     * @throws DelayTaskException if a live task has the same business key
     */
    boolean requeueTask(long taskId);

    /**
     * Run every dead task of a queue again, now, each as by {@link #requeueTask(long)}, in pages of 1,000: once the
     * cause of their failures is fixed. A dead task whose business key a live task has now stays dead (the log says
     * so) and the others still run.
     * @param taskType the task type
     * @param priority the priority
     * @return how many tasks this call requeued
     * @throws IllegalArgumentException if the type or priority is out of range
     * @throws DelayTaskException if the database could not be read or written; tasks requeued before stay requeued
     * when the call is made outside a transaction, as it should be: inside one, a task refused for its business key
     * fails the caller's transaction
     */
    int requeueDeadTasks(int taskType, int priority);

    /**
     * Move a pending task to a new execute time; it then fires at that time only.
     * @param taskId the task's id
     * @param executeTime the new execute time, at most {@link DelayTask#MAX_EXECUTE_TIME}
     * @return {@code false} if the task is unknown, finished, or running
     * @throws IllegalArgumentException if the execute time is out of range
     */
    boolean rescheduleTask(long taskId, Instant executeTime);

    /**
     * Take one due task of the given type and priority, and mark it executed: at most once, as the task is recorded
     * executed before it is returned, so it is not delivered again if the caller then fails. For at-least-once
     * delivery, as listeners have, use {@link #poll(int, int, Consumer)}.
     * @param taskType the task type
     * @param priority the priority
     * @return the task, or {@code null} when none is due
     * @throws IllegalArgumentException if the type or priority is out of range
     */
    @Nullable DelayTask poll(int taskType, int priority);

    /**
     * Take one due task of the given type and priority and run the handler on it, on the calling thread: at least
     * once, as listeners do. The task is recorded executed when the handler returns. When the handler throws, the
     * task runs again after the back-off of {@code delay-task.retry.*} (or becomes {@link TaskStatus#DEAD} after its
     * last attempt) and the exception is rethrown. When the caller dies while the handler runs, the task is delivered
     * again after {@code delay-task.lease}. The context the add carried ({@link TaskContextPropagator}) is restored
     * around the handler, and the calling thread's put back after it.
     * @param taskType the task type
     * @param priority the priority
     * @param handler what to do with the task
     * @return whether a task was due and handled
     * @throws IllegalArgumentException if the type or priority is out of range
     */
    boolean poll(int taskType, int priority, Consumer<DelayTask> handler);

    /**
     * Stop claiming the tasks of a queue, on every instance, until {@link #resumeQueue(int, int)}: a slow or broken
     * downstream can be held off without stopping the application. Adds, cancels and reschedules go on; handlers
     * already running finish; due tasks wait, and {@link #poll(int, int)} returns none of them. Instances see the
     * pause at their next claim, within {@code delay-task.listener.poll-interval}.
     * <p>
     * The flag lives in Redis: a Redis that loses its data (a restart without persistence, a flush, a fail-over to an
     * empty replica) loses the pause too, and the queue runs again. Instances of versions without pauses ignore the
     * flag: a pause holds once every instance runs this version.
     * @param taskType the task type
     * @param priority the priority
     * @return {@code true} if this call paused the queue; {@code false} if it was paused already
     * @throws IllegalArgumentException if the type or priority is out of range
     */
    boolean pauseQueue(int taskType, int priority);

    /**
     * Let the tasks of a paused queue be claimed again, on every instance; tasks that fell due meanwhile run at once.
     * @param taskType the task type
     * @param priority the priority
     * @return {@code true} if this call resumed the queue; {@code false} if it was not paused
     * @throws IllegalArgumentException if the type or priority is out of range
     */
    boolean resumeQueue(int taskType, int priority);

    /**
     * Whether a queue is paused by {@link #pauseQueue(int, int)}.
     * @param taskType the task type
     * @param priority the priority
     * @return whether claims of the queue are stopped
     * @throws IllegalArgumentException if the type or priority is out of range
     */
    boolean isQueuePaused(int taskType, int priority);

    /**
     * Store a recurring schedule, or change the stored one of its name: from then on, at each of its times, an
     * ordinary task of its type and priority is added (see {@link TaskSchedule}), on whichever instance gets there
     * first, once. A changed schedule's tasks of times still to come are cancelled and it goes on from its new next
     * time; one whose definition is unchanged is left as it is, its next time too.
     * @param schedule the schedule
     * @return {@code true} if this call stored or changed it
     * @throws DelayTaskException if the database could not be read or written, or lacks the table
     * {@code taskinfo_schedule}
     */
    default boolean saveSchedule(TaskSchedule schedule) {
        throw new UnsupportedOperationException("saveSchedule is not supported by " + getClass().getName());
    }

    /**
     * Stop a schedule adding tasks, on every instance, until {@link #resumeSchedule(String)}; its tasks of times
     * still to come are cancelled, and a restart leaves it paused.
     * @param name the schedule's name
     * @return {@code true} if this call paused it; {@code false} if it is unknown or paused already
     */
    default boolean pauseSchedule(String name) {
        throw new UnsupportedOperationException("pauseSchedule is not supported by " + getClass().getName());
    }

    /**
     * Let a paused schedule add tasks again, from its first time after now: the times it missed while paused are
     * skipped, whatever its {@link TaskSchedule.CatchUp}.
     * @param name the schedule's name
     * @return {@code true} if this call resumed it; {@code false} if it is unknown or not paused
     */
    default boolean resumeSchedule(String name) {
        throw new UnsupportedOperationException("resumeSchedule is not supported by " + getClass().getName());
    }

    /**
     * Remove a schedule, and cancel its tasks of times still to come. A schedule declared in code is stored again
     * by the next instance that starts with the declaration.
     * @param name the schedule's name
     * @return {@code true} if this call removed it
     */
    default boolean removeSchedule(String name) {
        throw new UnsupportedOperationException("removeSchedule is not supported by " + getClass().getName());
    }

    /**
     * List the stored schedules, by name.
     * @return every schedule, paused or not
     */
    default List<ScheduleDetails> findSchedules() {
        throw new UnsupportedOperationException("findSchedules is not supported by " + getClass().getName());
    }

    /**
     * Find one stored schedule, paused or not.
     * @param name the schedule's name
     * @return the schedule, or empty if none has that name
     */
    default Optional<ScheduleDetails> findSchedule(String name) {
        throw new UnsupportedOperationException("findSchedule is not supported by " + getClass().getName());
    }

}
