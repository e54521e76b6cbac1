package io.github.delaytask.core;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * When a failed task runs again: attempts are counted from the first run, delays grow by a multiplier up to a
 * maximum. Public for wiring.
 * @param maxAttempts attempts in all, the first included; 1 means no retry
 * @param initialDelay delay before the second attempt
 * @param multiplier factor applied to the delay after each further failure
 * @param maxDelay longest delay
 */
public record RetryPolicy(int maxAttempts, Duration initialDelay, double multiplier, Duration maxDelay) {

    public RetryPolicy {
        Assert.isTrue(maxAttempts >= 1, "maxAttempts must be at least 1");
        Assert.isTrue(multiplier >= 1, "multiplier must be at least 1");
        Assert.isTrue(!initialDelay.isNegative() && !maxDelay.isNegative(), "Retry delays must not be negative");
    }

    /**
     * This policy with the given values in place of its own; 0 or null keeps a value.
     */
    public RetryPolicy withOverrides(int maxAttempts, Duration initialDelay, double multiplier, Duration maxDelay) {
        return new RetryPolicy((maxAttempts > 0) ? maxAttempts : this.maxAttempts,
                (initialDelay != null) ? initialDelay : this.initialDelay,
                (multiplier > 0) ? multiplier : this.multiplier, (maxDelay != null) ? maxDelay : this.maxDelay);
    }

    /** Whether a task that failed its {@code attempts}-th attempt may run again. */
    public boolean allowsRetryAfter(int attempts) {
        return attempts < this.maxAttempts;
    }

    /** Delay after the {@code attempts}-th failed attempt. */
    public Duration delayAfter(int attempts) {
        double millis = this.initialDelay.toMillis() * Math.pow(this.multiplier, Math.max(0, attempts - 1));
        return Duration.ofMillis((long) Math.min(millis, this.maxDelay.toMillis()));
    }

}
