package io.github.delaytask;

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
     * Store a task to run at its execute time (or after its delay). A task due in the past runs at once.
     * @param task the task; its id is set on return
     * @return the task's id
     * @throws IllegalArgumentException if the task is null or its type, priority or parameters are out of range
     * @throws DelayTaskException if the task could not be stored; nothing of it is kept then
     */
    long addTask(DelayTask task);

    /**
     * Cancel a task that has not started running.
     * @param taskId the task's id
     * @return {@code true} if this call cancelled it; {@code false} if the id is unknown or the task already ran,
     * is running or was cancelled
     */
    boolean cancelTask(long taskId);

    /**
     * Take one due task of the given type and priority, and mark it executed.
     * @param taskType the task type
     * @param priority the priority
     * @return the task, or {@code null} when none is due
     */
    DelayTask poll(int taskType, int priority);

}
