package io.github.delaytask.store;

import io.github.delaytask.DelayTask;
import io.github.delaytask.core.QueueId;

/**
 * A task as the database holds it while it is live. Public for wiring.
 * @param taskId the id
 * @param taskType the type
 * @param priority the priority
 * @param executeTime when it is due, epoch ms
 * @param parameters the raw parameters, or null
 * @param version the optimistic-lock version
 * @param attempts how many runs of its handler ended with a recorded outcome (a failure, as a task that succeeded
 * leaves the table); a claim that never started its handler, or a run lost with its instance, does not count
 * @param leaseUntil while a consumer holds it, when its lease ends (epoch ms, Redis time); otherwise null
 * @param traceContext the context its add carried (the trace's, the application's), as text; read by claims while
 * observations are on or the application carries context, null otherwise
 * @param bizKey its business key, or null; read by claims, for its handler
 */
public record StoredTask(long taskId, int taskType, int priority, long executeTime, byte[] parameters, int version,
        int attempts, Long leaseUntil, String traceContext, String bizKey) {

    /** A task without a trace context or a business key. */
    public StoredTask(long taskId, int taskType, int priority, long executeTime, byte[] parameters, int version,
            int attempts, Long leaseUntil) {
        this(taskId, taskType, priority, executeTime, parameters, version, attempts, leaseUntil, null, null);
    }

    /** A task without a business key. */
    public StoredTask(long taskId, int taskType, int priority, long executeTime, byte[] parameters, int version,
            int attempts, Long leaseUntil, String traceContext) {
        this(taskId, taskType, priority, executeTime, parameters, version, attempts, leaseUntil, traceContext, null);
    }

    public QueueId queue() {
        return new QueueId(this.taskType, this.priority);
    }

    /** Whether a consumer holds it at the given time. */
    public boolean leasedAt(long now) {
        return this.leaseUntil != null && this.leaseUntil > now;
    }

    public DelayTask toDelayTask() {
        DelayTask task = new DelayTask(this.taskType, this.priority, this.executeTime, this.parameters);
        task.setTaskId(this.taskId);
        task.setBizKey(this.bizKey);
        return task;
    }

    /** The number of the run a consumer that holds the task makes: the recorded runs before it, plus one. */
    public int attempt() {
        return this.attempts + 1;
    }

    /** The same task after a successful claim. */
    public StoredTask claimed(long leaseUntil) {
        return new StoredTask(this.taskId, this.taskType, this.priority, this.executeTime, this.parameters,
                this.version + 1, this.attempts, leaseUntil, this.traceContext, this.bizKey);
    }

}
