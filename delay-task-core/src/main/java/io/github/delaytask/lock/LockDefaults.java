package io.github.delaytask.lock;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * Durations of a {@code @DistributedLock} whose annotation leaves them empty. Public for wiring.
 * @param lockAtMostFor how long the lock is held at most
 * @param lockAtLeastFor how long the lock is held at least
 */
public record LockDefaults(Duration lockAtMostFor, Duration lockAtLeastFor) {

    public LockDefaults {
        Assert.isTrue(lockAtMostFor.toMillis() > 0, "delay-task.lock.lock-at-most-for must be positive");
        Assert.isTrue(!lockAtLeastFor.isNegative(), "delay-task.lock.lock-at-least-for must not be negative");
        Assert.isTrue(lockAtLeastFor.compareTo(lockAtMostFor) <= 0,
                "delay-task.lock.lock-at-least-for must not be longer than delay-task.lock.lock-at-most-for");
    }

}
