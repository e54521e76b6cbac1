package io.github.delaytask.lock;

import java.time.Duration;

import org.springframework.lang.Nullable;

/**
 * What came of one attempt to run under a lock. Public for the {@code scheduledlocks} endpoint.
 * @param status whether the work ran, failed, or was skipped because another holder had the lock
 * @param value what the work returned, if it ran
 * @param error what the work threw, if it failed
 * @param duration how long the work took, unless it was skipped
 * @param lastRun the latest recorded run of the lock, if it was skipped and a run is recorded: its instance is then
 * the holder (or was, if it died holding the lock)
 * @param lockRemaining how long the lock is still held, if it was skipped and that is known
 */
public record RunResult(Status status, @Nullable Object value, @Nullable Throwable error, @Nullable Duration duration,
        @Nullable LastRun lastRun, @Nullable Duration lockRemaining) {

    static RunResult ran(@Nullable Object value, Duration duration) {
        return new RunResult(Status.RAN, value, null, duration, null, null);
    }

    static RunResult failed(Throwable error, Duration duration) {
        return new RunResult(Status.FAILED, null, error, duration, null, null);
    }

    static RunResult locked() {
        return new RunResult(Status.LOCKED, null, null, null, null, null);
    }

    RunResult withHolder(@Nullable LastRun lastRun, @Nullable Duration lockRemaining) {
        return new RunResult(this.status, this.value, this.error, this.duration, lastRun, lockRemaining);
    }

    /**
     * Whether the work ran.
     */
    public enum Status {

        /** It ran and returned. */
        RAN,

        /** It ran and threw. */
        FAILED,

        /** Another holder had the lock, so it did not run. */
        LOCKED

    }

}
