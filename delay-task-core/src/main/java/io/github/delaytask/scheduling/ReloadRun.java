package io.github.delaytask.scheduling;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One full reload on this instance (its start's, the reload job's, a recovery's), for the health details. Public
 * for wiring.
 * @param startedAt when it started, by the starter's clock
 * @param duration how long it took
 * @param tasks the tasks it brought into Redis; for a failed run, those it had read when it failed
 * @param error why it failed, or {@code null} if it did not
 */
public record ReloadRun(Instant startedAt, Duration duration, int tasks, @Nullable String error) {

}
