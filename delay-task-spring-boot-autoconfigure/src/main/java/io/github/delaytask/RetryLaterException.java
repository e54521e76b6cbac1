package io.github.delaytask;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * Thrown by a {@link DelayTaskListener} method to run its task again after a delay of its choosing, instead of the
 * listener's back-off: "the call failed, try again in 1 minute, then in 2". The attempt still counts towards the
 * listener's {@code maxAttempts}; after the last one the task becomes {@link TaskStatus#DEAD}.
 */
public class RetryLaterException extends RuntimeException {

    private final Duration delay;

    public RetryLaterException(Duration delay) {
        this(delay, "retry requested in " + delay);
    }

    public RetryLaterException(Duration delay, String reason) {
        super(reason);
        Assert.notNull(delay, "Delay must not be null");
        Assert.isTrue(!delay.isNegative(), "Delay must not be negative");
        this.delay = delay;
    }

    /** How long after this attempt the task runs again. */
    public Duration getDelay() {
        return this.delay;
    }

}
