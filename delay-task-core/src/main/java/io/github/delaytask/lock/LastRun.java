package io.github.delaytask.lock;

import java.time.Duration;
import java.time.Instant;

import org.springframework.lang.Nullable;

/**
 * The latest run of a {@code @DistributedLock} method, on whichever instance it happened. Public for the
 * {@code scheduledlocks} endpoint.
 * @param runId identifies the run, so that a run that outlived its lock cannot overwrite the record of a later one
 * @param host host name of the instance that ran it
 * @param pid process id of the instance that ran it
 * @param startedAt when it started, by that instance's clock
 * @param finishedAt when it ended, or {@code null} while it runs (or if its instance died)
 * @param duration how long it took, or {@code null} while it runs
 * @param outcome how it ended
 * @param error the exception it threw, or {@code null}
 */
public record LastRun(String runId, String host, long pid, Instant startedAt, @Nullable Instant finishedAt,
        @Nullable Duration duration, Outcome outcome, @Nullable String error) {

    /** Longest error text kept: a stack of causes can be long, and the record is read on every listing. */
    static final int MAX_ERROR_LENGTH = 1000;

    static LastRun started(String runId, String host, long pid, Instant startedAt) {
        return new LastRun(runId, host, pid, startedAt, null, null, Outcome.RUNNING, null);
    }

    LastRun finished(Instant finishedAt, @Nullable Throwable error) {
        return new LastRun(this.runId, this.host, this.pid, this.startedAt, finishedAt,
                Duration.between(this.startedAt, finishedAt), (error != null) ? Outcome.FAILED : Outcome.SUCCEEDED,
                (error != null) ? describe(error) : null);
    }

    static String describe(Throwable error) {
        String text = error.toString();
        return (text.length() <= MAX_ERROR_LENGTH) ? text : text.substring(0, MAX_ERROR_LENGTH);
    }

    /**
     * How a run ended.
     */
    public enum Outcome {

        /** Still running, or its instance died before it ended. */
        RUNNING,

        /** Returned normally. */
        SUCCEEDED,

        /** Threw an exception. */
        FAILED

    }

}
