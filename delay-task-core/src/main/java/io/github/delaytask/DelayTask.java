package io.github.delaytask;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * A task to run once, at or after its execute time, by the listener of its type and priority.
 * <p>
 * The execute time can be given as an instant ({@link #setExecuteTime(long)}, epoch milliseconds) or as a
 * {@linkplain #setDelay(Duration) delay} that {@link DelayTaskService#addTask(DelayTask)} adds to the current time.
 * The parameters are raw bytes; a {@linkplain #setPayload(Object) payload} object is written into them as JSON when
 * the task is added. Use {@link #builder(int)} for the common cases:
 * <pre>{@code
 * taskService.addTask(DelayTask.builder(ORDER_TIMEOUT).delay(Duration.ofMinutes(30)).payload(orderId).build());
 * }</pre>
 */
public class DelayTask {

    private @Nullable Long taskId;

    private int taskType;

    private int priority;

    private long executeTime;

    private byte @Nullable [] parameters;

    private @Nullable String bizKey;

    private transient @Nullable Duration delay;

    private transient @Nullable Object payload;

    public DelayTask() {
    }

    public DelayTask(int taskType, int priority, long executeTime, byte @Nullable [] parameters) {
        this.taskType = taskType;
        this.priority = priority;
        this.executeTime = executeTime;
        this.parameters = parameters;
    }

    /**
     * Start a builder for a task of the given type, priority 0, due now unless told otherwise.
     * @param taskType the task type, from 0 to {@link #MAX_TYPE}
     * @return a new builder
     */
    public static Builder builder(int taskType) {
        return new Builder(taskType);
    }

    /** Largest task type accepted. */
    public static final int MAX_TYPE = 1_000_000;

    /** Largest priority accepted. */
    public static final int MAX_PRIORITY = 1_000_000;

    /** Longest business key accepted. */
    public static final int MAX_BIZ_KEY_LENGTH = 191;

    /** Latest execute time accepted, in epoch milliseconds: the last millisecond of the year 9999, UTC. */
    public static final long MAX_EXECUTE_TIME = 253_402_300_799_999L;

    /** Id of the task: assigned by {@code addTask} unless set, then unique across all tasks. */
    public @Nullable Long getTaskId() {
        return this.taskId;
    }

    public void setTaskId(@Nullable Long taskId) {
        this.taskId = taskId;
    }

    public int getTaskType() {
        return this.taskType;
    }

    public void setTaskType(int taskType) {
        this.taskType = taskType;
    }

    public int getPriority() {
        return this.priority;
    }

    public void setPriority(int priority) {
        this.priority = priority;
    }

    /** Time the task is due, in epoch milliseconds. */
    public long getExecuteTime() {
        return this.executeTime;
    }

    public void setExecuteTime(long executeTime) {
        this.executeTime = executeTime;
    }

    public byte @Nullable [] getParameters() {
        return this.parameters;
    }

    public void setParameters(byte @Nullable [] parameters) {
        this.parameters = parameters;
    }

    /**
     * Business key, such as {@code order:123:timeout}: unique among live tasks. Adding a task whose key is live
     * returns the existing task's id and stores nothing new. At most {@link #MAX_BIZ_KEY_LENGTH} characters. A
     * handler, or a caller of {@code poll}, is given the key of its task here.
     */
    public @Nullable String getBizKey() {
        return this.bizKey;
    }

    public void setBizKey(@Nullable String bizKey) {
        this.bizKey = bizKey;
    }

    /** The parameters read as UTF-8 text, or {@code null} when there are none. */
    public @Nullable String getParametersAsString() {
        return (this.parameters != null) ? new String(this.parameters, StandardCharsets.UTF_8) : null;
    }

    /** Delay from the moment the task is added; when set it takes the place of the execute time. */
    public @Nullable Duration getDelay() {
        return this.delay;
    }

    public void setDelay(@Nullable Duration delay) {
        this.delay = delay;
    }

    /** Object written as JSON into the parameters when the task is added; not kept after that. */
    public @Nullable Object getPayload() {
        return this.payload;
    }

    public void setPayload(@Nullable Object payload) {
        this.payload = payload;
    }

    @Override
    public String toString() {
        return "DelayTask{taskId=" + this.taskId + ((this.bizKey != null) ? ", bizKey=" + this.bizKey : "")
                + ", taskType=" + this.taskType + ", priority=" + this.priority
                + ", executeTime=" + Instant.ofEpochMilli(this.executeTime) + ", parameters="
                + ((this.parameters != null) ? this.parameters.length + " bytes" : "none") + "}";
    }

    @Override
    public boolean equals(@Nullable Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DelayTask other)) {
            return false;
        }
        return java.util.Objects.equals(this.taskId, other.taskId) && this.taskType == other.taskType
                && this.priority == other.priority && this.executeTime == other.executeTime
                && Arrays.equals(this.parameters, other.parameters);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(this.taskId, this.taskType, this.priority, this.executeTime);
    }

    /** Builds a {@link DelayTask}. */
    public static final class Builder {

        private final DelayTask task = new DelayTask();

        private Builder(int taskType) {
            this.task.setTaskType(taskType);
        }

        public Builder taskId(long taskId) {
            this.task.setTaskId(taskId);
            return this;
        }

        public Builder priority(int priority) {
            this.task.setPriority(priority);
            return this;
        }

        /** Due at the given instant. */
        public Builder executeAt(Instant executeTime) {
            this.task.setExecuteTime(executeTime.toEpochMilli());
            this.task.setDelay(null);
            return this;
        }

        /** Due this long after the task is added. */
        public Builder delay(Duration delay) {
            this.task.setDelay(delay);
            return this;
        }

        public Builder parameters(byte[] parameters) {
            this.task.setParameters(parameters);
            return this;
        }

        /** Parameters as UTF-8 text. */
        public Builder parameters(String parameters) {
            this.task.setParameters(parameters.getBytes(StandardCharsets.UTF_8));
            return this;
        }

        /** A business key, unique among live tasks: adding the same key twice makes one task. */
        public Builder bizKey(String bizKey) {
            this.task.setBizKey(bizKey);
            return this;
        }

        /** An object to write as JSON into the parameters when the task is added. */
        public Builder payload(Object payload) {
            this.task.setPayload(payload);
            return this;
        }

        public DelayTask build() {
            DelayTask copy = new DelayTask(this.task.taskType, this.task.priority, this.task.executeTime,
                    this.task.parameters);
            copy.setTaskId(this.task.taskId);
            copy.setBizKey(this.task.bizKey);
            copy.setDelay(this.task.delay);
            copy.setPayload(this.task.payload);
            return copy;
        }

    }

}
