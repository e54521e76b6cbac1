package io.github.delaytask;

/**
 * Published as a Spring application event when a task's last attempt failed and the database recorded it
 * {@link TaskStatus#DEAD}: an {@code @EventListener} method that takes it can alert someone, or compensate, without
 * polling {@link DelayTaskService#findDeadTasks(int, int)}.
 * <p>
 * Published once per death, on the instance whose handler failed last, after the database committed, on the thread
 * that recorded it: the handler's, or the starter's timeout thread for a handler that ran past its timeout. A slow
 * listener holds up that thread (make it {@code @Async} for slow work), and one that
 * throws changes nothing of the task (its exception is logged). A dead task that is requeued and dies again is
 * published again. Nothing is published for a task that died on an instance that stopped before it could publish.
 *
 * @param task what the database holds of the task: id, type, priority, business key, parameters, attempts and the
 * error recorded with it, as {@link DelayTaskService#findTask(long)} returns it
 * @param cause what the handler threw on its last attempt
 */
public record DeadTaskEvent(TaskDetails task, Throwable cause) {
}
