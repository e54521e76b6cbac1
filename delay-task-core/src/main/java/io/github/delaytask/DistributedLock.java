package io.github.delaytask;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated bean method on one instance of the application at a time: a call made while another instance
 * holds the lock is skipped, not queued. On a {@code @Scheduled} method (cron, fixed rate or fixed delay) each trigger
 * therefore runs on one instance only.
 * <p>
 * The lock is the starter's {@link DistributedLocks} bean: a Redis key taken with {@code SET NX PX} and a random
 * token, released only by its holder. It lapses after {@link #lockAtMostFor()} if its holder crashed, and is kept
 * until {@link #lockAtLeastFor()} after a fast run so that an instance whose clock is a little behind does not run the
 * same trigger again. The lock names {@code reload}, {@code refresh}, {@code purge}, {@code recovery},
 * {@code preload-feed} and {@code full-reload} are taken by the starter's own jobs: a method that uses one fails
 * start-up.
 * <p>
 * A skipped call returns {@code null}, or {@code Optional.empty()} for a method returning {@code Optional}; an
 * exception thrown by the method is rethrown after the lock is released. The method must be one a proxy can
 * intercept (not private, final or static) and must not return a primitive; both are checked at start-up. As with
 * every Spring proxy, a call from the bean to itself bypasses the lock. Each run of a lock with a fixed name is
 * recorded in Redis and shown, and can be started by hand, by the {@code scheduledlocks} Actuator endpoint.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

    /**
     * Name of the lock, shared by every instance; methods with the same name exclude each other. {@code ${...}}
     * placeholders are resolved at start-up. {@code #{...}} parts are SpEL evaluated on every call, with the method
     * arguments as variables ({@code #orderId}, or {@code #p0}) and {@code @beanName} for beans, so that
     * {@code "order-#{#orderId}"} locks each order on its own. Argument names need the {@code -parameters} compiler
     * flag, which Spring Boot's build plugins set. Runs of a name with SpEL are not recorded.
     */
    String name();

    /**
     * How long the lock is held at most, so how long a crashed holder blocks the method; set it well above the
     * longest run, as a run that outlives it may overlap with another. A duration such as {@code 30s} or
     * {@code PT30S}; {@code ${...}} placeholders work. Empty for {@code delay-task.lock.lock-at-most-for}.
     */
    String lockAtMostFor() default "";

    /**
     * How long the lock is held at least, from the start of a run, even if the run ends sooner; set it above the
     * clock differences between instances and below the interval of the schedule minus those differences, so that
     * the lock has lapsed before any instance reaches the next trigger. A duration such as {@code 500ms}
     * or {@code PT0.5S}; {@code ${...}} placeholders work. Empty for {@code delay-task.lock.lock-at-least-for}.
     */
    String lockAtLeastFor() default "";

}
