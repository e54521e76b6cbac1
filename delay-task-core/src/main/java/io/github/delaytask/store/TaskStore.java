package io.github.delaytask.store;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The database side, and the source of truth: every state change of a task is decided here, under the version
 * check. Public for wiring.
 */
public interface TaskStore {

    /**
     * Store a new task as scheduled, in {@code taskinfo} and {@code taskinfo_logs}, in the caller's transaction,
     * unless a live task has its business key.
     * @return the stored task, or the live task that has the same business key
     * @throws org.springframework.dao.DuplicateKeyException if a task with that id exists
     */
    Insertion insert(NewTask task);

    /**
     * Store new tasks in one transaction (the caller's, if any): {@link #insert(NewTask)} for many.
     * @return an insertion for each task, in order
     */
    List<Insertion> insertAll(List<NewTask> tasks);

    /**
     * Whether a write made now, on this thread, would join a transaction of the caller's. Such a write must run on the
     * caller's own connection, never in a statement shared with other threads.
     */
    default boolean inCallerTransaction() {
        return TransactionSynchronizationManager.isSynchronizationActive()
                || TransactionSynchronizationManager.isActualTransactionActive();
    }

    /** The id of the live task with the given business key, or null. */
    Long findLiveIdByBizKey(String bizKey);

    /** What the log holds of a task, or null if the id is unknown. */
    TaskDetails findDetails(long taskId);

    /** Dead tasks, by id. */
    List<TaskDetails> findDead(int offset, int limit);

    /** Dead tasks, by id, highest first: the latest added first, as ids grow with time. */
    List<TaskDetails> findDeadNewestFirst(int offset, int limit);

    /** Dead tasks, newest first, without reading their parameters when not asked to (then null). */
    default List<TaskDetails> findDeadNewestFirst(int offset, int limit, boolean parameters) {
        return findDeadNewestFirst(offset, limit);
    }

    /**
     * Ids of a queue's dead tasks, in id order after the given id: one page of a requeue of them all.
     * @param afterTaskId the last id of the previous page, or {@link Long#MIN_VALUE}
     */
    List<Long> findDeadIds(QueueId queue, long afterTaskId, int limit);

    /** How many dead tasks each queue has, in one query; queues without any are missing. */
    Map<QueueId, Long> countDeadByQueue();

    /** How many live tasks each queue has and when the first is due, in one query; queues without any are missing. */
    Map<QueueId, LiveTasks> countLiveByQueue();

    /**
     * Make a dead task live again, due at {@code executeTime}, with no attempts.
     * @return the live task, or null if the task is not dead
     * @throws org.springframework.dao.DuplicateKeyException if a live task has its business key
     */
    StoredTask requeue(long taskId, long executeTime);

    /**
     * Move a task no consumer holds to a new execute time.
     * @return the task as changed, or null if it is unknown, finished, or taken by a consumer
     */
    StoredTask reschedule(long taskId, long executeTime);

    /**
     * The live task of a business key as last committed, whatever the snapshot of a caller's transaction, and
     * without holding a lock for it: in a caller's transaction, read in a transaction of its own.
     * @return the task, or null if no live task has the key
     */
    StoredTask findLiveByBizKey(String bizKey);

    /**
     * Store a task with a business key without looking for the key's live task first: an insert that loses to
     * another task of the key (as last committed) returns that task's id instead.
     */
    Insertion insertKeyed(NewTask task);

    /**
     * Give a live task no consumer holds a new execute time, parameters and carried context, keeping its id: one
     * statement overwrites them all at once, so that concurrent replacements leave one of them whole.
     * @param live the task as read, for its queue
     * @param traceContext the context of the replacing add, stored only where the store stores contexts
     * @return the task as changed (its version at least one above the one read), or null if it finished or a
     * consumer took it meanwhile
     */
    StoredTask replace(StoredTask live, long executeTime, byte[] parameters, String traceContext);

    /**
     * The live tasks among the given ids; ids of finished or unknown tasks are missing from the result.
     */
    List<StoredTask> findLive(Collection<Long> taskIds);

    /**
     * Hand tasks to a consumer until {@code leaseUntil}: those of the given ids that are live, due at {@code now}
     * and held by no consumer, each with its version bumped, so that a concurrent change of the same task (a cancel,
     * another claim) and this claim have exactly one winner.
     * @return the tasks this call won, as claimed; the others are finished, not due, held, or changed meanwhile
     */
    List<StoredTask> claimDue(Collection<Long> taskIds, long now, long leaseUntil);

    /**
     * Hand due tasks of the given queues to a consumer until {@code leaseUntil}, straight from the database, where
     * Redis gives no ids: while Redis does not answer. The earliest due go first, up to each queue's count; a task
     * another transaction holds (another instance claiming it) is passed over, not waited for. Each is claimed as
     * {@link #claimDue} claims it, so that a claim of the same task through Redis and this one have one winner.
     * @param counts the most tasks to claim from each queue
     * @return the tasks this call won, as claimed
     */
    List<StoredTask> claimDueInQueues(Map<QueueId, Integer> counts, long now, long leaseUntil);

    /**
     * The earliest execute time of each queue's live tasks due after {@code after} and no later than {@code until}:
     * where Redis gives no next due time, a dispatch from the database sleeps until the next task rather than a whole
     * poll interval. Each queue costs a read of the execute-time index from {@code after} to its first task.
     * @return the earliest execute time of each queue that has a task in the window; the others are left out. None
     * by default, for a store of an application's own written before this: its queues are then looked at each poll
     * interval
     */
    default Map<QueueId, Long> nextDueTimes(Collection<QueueId> queues, long after, long until) {
        return Map.of();
    }

    /**
     * Extend the leases of claimed tasks whose handlers still run, in one statement: a task keeps its version, so
     * that its claim can still finish it, and one whose version moved on (another consumer took it over, or it was
     * requeued) is left alone.
     * @param running the claims of the tasks
     * @param leaseUntil the new end of their leases, epoch ms of the clock claims use; a lease that ends later
     * already is left as it is
     * @return how many leases were extended
     */
    int renewLeases(Collection<StoredTask> running, long leaseUntil);

    /**
     * Finish a claimed task: it leaves {@code taskinfo} and its log gets the given final status.
     * @param claimed the task as returned by a successful claim
     * @param status {@link TaskStatus#EXECUTED}
     * @param error the last error, or null
     * @return {@code false} if the claim was lost meanwhile (its lease ran out and another consumer took it)
     */
    boolean finish(StoredTask claimed, TaskStatus status, String error);

    /**
     * Record that claimed tasks ran: they leave {@code taskinfo} and their logs say executed, in one transaction,
     * which waits for no row another transaction holds. Such a task is left for {@link #finish}, which waits.
     * @return the tasks finished and those held by another transaction; those in neither had lost their claim
     */
    Finishes finishAllExecuted(List<StoredTask> claimed);

    /**
     * Undo a claim whose handler never started: the task is as it was before the claim, with a new version.
     * @return {@code false} if the claim was lost meanwhile
     */
    boolean unclaim(StoredTask claimed);

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
     * Discard a dead task: its log says cancelled from now on, so that it is no longer listed, counted or requeued
     * as dead, and the history purge deletes it with the other cancelled tasks. A concurrent requeue and a discard of
     * one task have one winner.
     * @return whether this call discarded it; false if it is not dead
     */
    default boolean cancelDead(long taskId) {
        return false;
    }

    /**
     * Live tasks due up to {@code horizon}, in (execute time, id) order after the given position: one page of the
     * reload.
     */
    List<StoredTask> findDue(long horizon, long afterExecuteTime, long afterTaskId, int limit);

    /** The database's clock, epoch ms: one clock for every instance. */
    long currentTimeMillis();

    /**
     * Which of the given ids this store knows as tasks of the queue, whatever their status: an id it does not know
     * there belongs to another application that shares the Redis keys (its ids may clash with this store's, in
     * another queue).
     */
    Set<Long> findKnown(QueueId queue, Collection<Long> taskIds);

    /**
     * Delete, oldest first, at most {@code limit} rows of {@code taskinfo_logs} that finished with the given status
     * before {@code finishedBefore} (epoch ms by {@link #currentTimeMillis() the database's clock}); rows finished
     * before the schema recorded finishing times count as finished at their execute time. The statements commit on
     * their own, each holding its locks for a moment. Never a live task, never {@code taskinfo}.
     * @param status {@link TaskStatus#EXECUTED}, {@link TaskStatus#CANCELLED} or {@link TaskStatus#DEAD}
     * @return how many rows were deleted; fewer than the limit once no more are that old
     */
    int purgeFinished(TaskStatus status, long finishedBefore, int limit);

    /**
     * Fail when the schema lacks what this version writes, saying what to do about it.
     * @throws IllegalStateException if a column is missing
     */
    default void checkSchema() {
    }

    /**
     * The id of this task store, created with the schema in {@code taskinfo_store}.
     * @throws IllegalStateException if the schema has no such table or row, with what to do about it
     */
    String storeId();

    /**
     * The outcome of {@link #insert(NewTask)}.
     * @param taskId the id of the stored task, or of the live task with the same business key
     * @param created the stored task, or null when nothing was stored
     */
    record Insertion(long taskId, StoredTask created) {
    }

    /**
     * The live tasks of one queue.
     * @param count how many there are, running ones included
     * @param firstExecuteTime the earliest execute time among them, epoch ms
     */
    record LiveTasks(long count, long firstExecuteTime) {
    }

}
