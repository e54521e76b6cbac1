package io.github.delaytask;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * Thrown by a {@link DelayTaskListener} method to run its task again after a delay of its choosing, instead of the
 * listener's back-off: "the call failed, try again in 1 minute, then in 2". The attempt still counts towards the
 * listener's {@code maxAttempts}; after the last one the task becomes {@link TaskStatus#DEAD}.
 */
public class RetryLaterException extends RuntimeException {

    /** Longest delay a handler may ask for: about a hundred years. */
    public static final Duration MAX_DELAY = Duration.ofDays(36_525);

    private final Duration delay;

    /**
     * @param delay how long after this attempt the task runs again, at most {@link #MAX_DELAY}
     * @throws IllegalArgumentException if the delay is null, negative or longer than {@link #MAX_DELAY}
     */
    public RetryLaterException(Duration delay) {
        this(delay, "retry requested in " + delay);
    }

    /**
     * @param delay how long after this attempt the task runs again, at most {@link #MAX_DELAY}
     * @param reason what went wrong, kept as the task's last error
     * @throws IllegalArgumentException if the delay is null, negative or longer than {@link #MAX_DELAY}
     */
    public RetryLaterException(Duration delay, String reason) {
        super(reason);
        Assert.notNull(delay, "Delay must not be null");
        Assert.isTrue(!delay.isNegative() && delay.compareTo(MAX_DELAY) <= 0,
                () -> "Delay " + delay + " must be between 0 and " + MAX_DELAY);
        this.delay = delay;
    }

    /** How long after this attempt the task runs again. */
    public Duration getDelay() {
        return this.delay;
    }

}
