package io.github.delaytask.core;

import java.time.Duration;
import java.time.Instant;

import io.github.delaytask.DelayTask;
import io.github.delaytask.PayloadCodec;
import io.github.delaytask.store.NewTask;

/**
 * Turns what a caller asks to add into what is stored: checks its type, priority, key, id and times, counts its delay
 * from now on the clock of execute times, and writes its payload, within {@code delay-task.max-parameters-size}.
 */
final class NewTasks {

    private final PayloadCodec codec;

    private final long maxParametersSize;

    NewTasks(PayloadCodec codec, long maxParametersSize) {
        this.codec = codec;
        this.maxParametersSize = maxParametersSize;
    }

    /** The task as stored, once checked: its delay counted from {@code now}, its payload written as JSON. */
    NewTask of(DelayTask task, long now) {
        validate(task);
        long executeTime = task.getExecuteTime();
        if (task.getDelay() != null) {
            if (task.getDelay().compareTo(Duration.ofMillis(DelayTask.MAX_EXECUTE_TIME - now)) > 0) {
                throw new IllegalArgumentException("Delay " + task.getDelay() + " puts the task after "
                        + Instant.ofEpochMilli(DelayTask.MAX_EXECUTE_TIME));
            }
            executeTime = now + task.getDelay().toMillis();
        }
        checkExecuteTime(executeTime);
        return new NewTask(task.getTaskId(), task.getTaskType(), task.getPriority(), executeTime, parametersOf(task),
                task.getBizKey());
    }

    static void checkExecuteTime(long executeTime) {
        if (executeTime < 0 || executeTime > DelayTask.MAX_EXECUTE_TIME) {
            throw new IllegalArgumentException("Execute time " + executeTime + " is not between 0 (1970) and "
                    + DelayTask.MAX_EXECUTE_TIME + " (" + Instant.ofEpochMilli(DelayTask.MAX_EXECUTE_TIME) + ")");
        }
    }

    /** The queue of a type and priority, once both are checked. */
    static QueueId queueOf(int taskType, int priority) {
        checkQueue(taskType, priority);
        return new QueueId(taskType, priority);
    }

    private static void checkQueue(int taskType, int priority) {
        if (taskType < 0 || taskType > DelayTask.MAX_TYPE) {
            throw new IllegalArgumentException("Task type " + taskType + " is not between 0 and " + DelayTask.MAX_TYPE);
        }
        if (priority < 0 || priority > DelayTask.MAX_PRIORITY) {
            throw new IllegalArgumentException(
                    "Priority " + priority + " is not between 0 and " + DelayTask.MAX_PRIORITY);
        }
    }

    private byte[] parametersOf(DelayTask task) {
        byte[] parameters = task.getParameters();
        if (parameters == null && task.getPayload() != null) {
            try {
                parameters = this.codec.write(task.getPayload());
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("Cannot write the payload of " + task, ex);
            }
        }
        if (parameters != null && parameters.length > this.maxParametersSize) {
            throw new IllegalArgumentException("Task parameters are " + parameters.length + " bytes, more than "
                    + "delay-task.max-parameters-size (" + this.maxParametersSize + ")");
        }
        return parameters;
    }

    private static void validate(DelayTask task) {
        if (task == null) {
            throw new IllegalArgumentException("Task must not be null");
        }
        checkQueue(task.getTaskType(), task.getPriority());
        if (task.getDelay() != null && task.getDelay().isNegative()) {
            throw new IllegalArgumentException("Delay " + task.getDelay() + " must not be negative");
        }
        if (task.getBizKey() != null
                && (task.getBizKey().isBlank() || task.getBizKey().length() > DelayTask.MAX_BIZ_KEY_LENGTH)) {
            throw new IllegalArgumentException("Business key '" + task.getBizKey() + "' must be non-blank and at most "
                    + DelayTask.MAX_BIZ_KEY_LENGTH + " characters");
        }
        if (task.getTaskId() != null && task.getTaskId() <= 0) {
            throw new IllegalArgumentException("Task id " + task.getTaskId() + " must be positive");
        }
    }

}
