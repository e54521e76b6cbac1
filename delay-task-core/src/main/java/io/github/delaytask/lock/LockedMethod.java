package io.github.delaytask.lock;

import java.time.Duration;

import org.springframework.expression.Expression;
import org.springframework.lang.Nullable;

/**
 * The {@code @DistributedLock} of one method, resolved once: placeholders replaced, durations parsed, SpEL parsed.
 * @param name the name with its placeholders resolved; a template when it has SpEL parts
 * @param nameExpression the parsed template, or {@code null} for a fixed name
 * @param lockAtMostFor how long the lock is held at most
 * @param lockAtLeastFor how long the lock is held at least
 */
record LockedMethod(String name, @Nullable Expression nameExpression, Duration lockAtMostFor,
        Duration lockAtLeastFor) {

    boolean hasFixedName() {
        return this.nameExpression == null;
    }

}
