package io.github.delaytask.sample.retry;

/**
 * A call to the flaky service, as stored in {@code sample_call}.
 *
 * @param id the call's id
 * @param attempts attempts made so far
 * @param maxAttempts attempts allowed before giving up
 * @param status the call's status
 */
public record Call(long id, int attempts, int maxAttempts, CallStatus status) {
}
