package io.github.delaytask.store;

/**
 * A task to store. Public for wiring.
 * @param taskId the id to use, or null to have one assigned
 * @param taskType the type
 * @param priority the priority
 * @param executeTime when it is due, epoch ms
 * @param parameters the raw parameters, or null
 * @param bizKey the business key, or null
 * @param traceContext the context of its add (the trace's, the application's) as text, stored only while
 * observations are on or the application carries context; or null
 */
public record NewTask(Long taskId, int taskType, int priority, long executeTime, byte[] parameters, String bizKey,
        String traceContext) {

    /** A task without a trace context. */
    public NewTask(Long taskId, int taskType, int priority, long executeTime, byte[] parameters, String bizKey) {
        this(taskId, taskType, priority, executeTime, parameters, bizKey, null);
    }

    /** The same task with the trace context of its add. */
    public NewTask withTraceContext(String traceContext) {
        return new NewTask(this.taskId, this.taskType, this.priority, this.executeTime, this.parameters, this.bizKey,
                traceContext);
    }

}
