package io.github.delaytask.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code delaytask.add} observation knows of an add. Its carrier receives the trace context that a
 * tracing handler propagates, which is stored with the tasks.
 */
public class DelayTaskAddContext extends SenderContext<Map<String, String>> {

    private final @Nullable Integer taskType;

    private final @Nullable Integer priority;

    private final int count;

    private @Nullable Long taskId;

    /**
     * @param taskType the type of every task added, or null when they differ
     * @param priority the priority of every task added, or null when they differ
     * @param count how many tasks are added
     */
    public DelayTaskAddContext(@Nullable Integer taskType, @Nullable Integer priority, int count) {
        super((carrier, key, value) -> {
            if (carrier != null) {
                carrier.put(key, value);
            }
        }, Kind.PRODUCER);
        this.taskType = taskType;
        this.priority = priority;
        this.count = count;
        setCarrier(new LinkedHashMap<>());
        setRemoteServiceName("delay-task");
    }

    /** The type of every task added, or null when they differ. */
    public @Nullable Integer getTaskType() {
        return this.taskType;
    }

    /** The priority of every task added, or null when they differ. */
    public @Nullable Integer getPriority() {
        return this.priority;
    }

    /** How many tasks are added. */
    public int getCount() {
        return this.count;
    }

    /** The id of the one task added, once stored; null for a batch or before. */
    public @Nullable Long getTaskId() {
        return this.taskId;
    }

    void setTaskId(long taskId) {
        this.taskId = taskId;
    }

}
