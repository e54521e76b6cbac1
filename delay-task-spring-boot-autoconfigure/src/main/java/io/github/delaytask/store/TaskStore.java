package io.github.delaytask.store;

import java.util.Collection;
import java.util.List;

import io.github.delaytask.TaskStatus;

/**
 * The database side, and the source of truth: every state change of a task is decided here, under the version
 * check. Public for wiring.
 */
public interface TaskStore {

    /**
     * Store a new task as scheduled, in {@code taskinfo} and {@code taskinfo_logs}, in the caller's transaction.
     * @param taskId the id to use, or null to have one assigned
     * @return the stored task, with its id
     * @throws org.springframework.dao.DuplicateKeyException if a task with that id exists
     */
    StoredTask insert(Long taskId, int taskType, int priority, long executeTime, byte[] parameters);

    /**
     * The live tasks among the given ids; ids of finished or unknown tasks are missing from the result.
     */
    List<StoredTask> findLive(Collection<Long> taskIds);

    /**
     * Hand a task to a consumer until {@code leaseUntil}, if nobody changed it since it was read.
     * @return whether this call won the task
     */
    boolean claim(StoredTask task, long leaseUntil);

    /**
     * Finish a claimed task: it leaves {@code taskinfo} and its log gets the given final status.
     * @param claimed the task as returned by a successful claim
     * @param status {@link TaskStatus#EXECUTED}
     * @param error the last error, or null
     * @return {@code false} if the claim was lost meanwhile (its lease ran out and another consumer took it)
     */
    boolean finish(StoredTask claimed, TaskStatus status, String error);

    /**
     * Give a claimed task back, due again at {@code executeTime}.
     * @return {@code false} if the claim was lost meanwhile
     */
    boolean release(StoredTask claimed, long executeTime, String error);

    /**
     * Cancel a task no consumer has taken: it leaves {@code taskinfo} and its log says cancelled. A task that was
     * taken and not given back stays: its handler may be running, and a cancelled task must never run.
     * @return the cancelled task, or null if the id is unknown, finished, or taken by a consumer
     */
    StoredTask cancel(long taskId);

    /**
     * Live tasks due up to {@code horizon}, in (execute time, id) order after the given position: one page of the
     * reload.
     */
    List<StoredTask> findDue(long horizon, long afterExecuteTime, long afterTaskId, int limit);

    /** The database's clock, epoch ms: one clock for every instance. */
    long currentTimeMillis();

}
