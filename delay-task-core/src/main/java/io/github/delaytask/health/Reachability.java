package io.github.delaytask.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * Whether one server answers, as the health checks have seen it, and since when it has not. Not thread-safe: its
 * {@link DelayTaskHealth} calls it under its lock.
 * <p>
 * A probe that has not answered when a check stops waiting is not abandoned: the next check waits for the same
 * probe again rather than send another, so a server that hangs holds one thread, not one per check, and counts as
 * failing from the moment the probe was sent.
 */
final class Reachability {

    private final String name;

    private final Callable<?> probe;

    private @Nullable Future<?> pending;

    private Instant pendingSince = Instant.EPOCH;

    private @Nullable Instant failingSince;

    private @Nullable Failure lastFailure;

    /**
     * @param name the server's name in the details
     * @param probe a call that returns when the server answers and throws when it cannot
     */
    Reachability(String name, Callable<?> probe) {
        this.name = name;
        this.probe = probe;
    }

    /** Send a probe, unless the last one still waits for its answer. */
    void probe(ExecutorService executor, Instant now) {
        if (this.pending == null) {
            this.pending = executor.submit(this.probe);
            this.pendingSince = now;
        }
    }

    /**
     * Take in the probe's answer, waiting for it until the deadline.
     * @param deadline the end of the wait, in nanos of {@link System#nanoTime()}
     */
    void awaitAnswer(long deadline, Clock clock) {
        Future<?> probe = this.pending;
        if (probe == null) {
            return;
        }
        try {
            probe.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            this.pending = null;
            this.failingSince = null;
        }
        catch (TimeoutException ex) {
            Instant now = clock.instant();
            failed(now, "no answer for " + Duration.between(this.pendingSince, now).toMillis() + " ms");
        }
        catch (ExecutionException ex) {
            this.pending = null;
            failed(clock.instant(), describe(ex.getCause()));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Forget a probe still waiting for its answer, as the threads stop. */
    void cancel() {
        Future<?> probe = this.pending;
        if (probe != null) {
            probe.cancel(true);
            this.pending = null;
        }
    }

    /** Whether the server has failed to answer, check after check, for longer than the given time. */
    boolean unreachableFor(Duration unreachableAfter, Instant now) {
        Instant since = this.failingSince;
        return since != null && Duration.between(since, now).compareTo(unreachableAfter) > 0;
    }

    @Nullable Failure lastFailure() {
        return this.lastFailure;
    }

    Map<String, Object> details() {
        Map<String, Object> details = new LinkedHashMap<>();
        Instant since = this.failingSince;
        Failure failure = this.lastFailure;
        details.put("answers", since == null);
        if (since != null && failure != null) {
            details.put("failingSince", since.toString());
            details.put("error", failure.error());
        }
        return details;
    }

    private void failed(Instant now, String error) {
        if (this.failingSince == null) {
            this.failingSince = this.pendingSince;
        }
        this.lastFailure = new Failure(this.name, now, error);
    }

    private static String describe(@Nullable Throwable error) {
        if (error == null) {
            return "failed without an exception";
        }
        Throwable cause = NestedExceptionUtils.getMostSpecificCause(error);
        return (cause != error) ? error + "; caused by " + cause : error.toString();
    }

    /**
     * A failure of a probe.
     * @param server the server's name
     * @param at when it was seen
     * @param error what went wrong
     */
    record Failure(String server, Instant at, String error) {

        Map<String, Object> details() {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("server", this.server);
            details.put("at", this.at.toString());
            details.put("error", this.error);
            return details;
        }

    }

}
