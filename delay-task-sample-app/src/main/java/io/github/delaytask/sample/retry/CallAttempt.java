package io.github.delaytask.sample.retry;

/**
 * Payload of a {@link io.github.delaytask.sample.TaskTypes#CALL_ATTEMPT} task, stored with the task as JSON.
 *
 * @param callId the call's id
 * @param number the attempt's number, from 1
 */
public record CallAttempt(long callId, int number) {
}
