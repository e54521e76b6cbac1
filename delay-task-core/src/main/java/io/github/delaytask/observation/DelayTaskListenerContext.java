package io.github.delaytask.observation;

import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code delaytask.listener} observation knows of a handler run. Its carrier holds the trace context
 * stored with the task by its add, empty for a task added without one.
 */
public class DelayTaskListenerContext extends ReceiverContext<Map<String, String>> {

    private final int taskType;

    private final int priority;

    private final long taskId;

    private final int attempt;

    private @Nullable Boolean succeeded;

    /**
     * @param taskType the task's type
     * @param priority the task's priority
     * @param taskId the task's id
     * @param attempt the number of this run, from 1
     * @param traceContext what the add propagated
     */
    public DelayTaskListenerContext(int taskType, int priority, long taskId, int attempt,
            Map<String, String> traceContext) {
        super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
        this.taskType = taskType;
        this.priority = priority;
        this.taskId = taskId;
        this.attempt = attempt;
        setCarrier(traceContext);
        setRemoteServiceName("delay-task");
    }

    public int getTaskType() {
        return this.taskType;
    }

    public int getPriority() {
        return this.priority;
    }

    public long getTaskId() {
        return this.taskId;
    }

    /** The number of this run, from 1. */
    public int getAttempt() {
        return this.attempt;
    }

    /** Whether the handler returned; null while it runs. */
    public @Nullable Boolean getSucceeded() {
        return this.succeeded;
    }

    void setSucceeded(boolean succeeded) {
        this.succeeded = succeeded;
    }

    /** The trace context's fields, read-only; for a convention that wants one of them. */
    public @Nullable String traceField(String key) {
        Map<String, String> carrier = getCarrier();
        return (carrier != null) ? carrier.get(key) : null;
    }

}
