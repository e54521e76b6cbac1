package io.github.delaytask;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What the database knows of a task, as returned by {@link DelayTaskService#findTask(long)}.
 * @param taskId the task's id
 * @param taskType its type
 * @param priority its priority
 * @param executeTime when it is (or was last) due
 * @param status its status
 * @param attempts how many times it was handed to a handler
 * @param lastError the stack trace of its last failure, or null
 * @param bizKey its business key, or null
 * @param parameters its parameters, or null
 */
public record TaskDetails(long taskId, int taskType, int priority, Instant executeTime, TaskStatus status,
        int attempts, @Nullable String lastError, @Nullable String bizKey, byte @Nullable [] parameters) {
}
