package io.github.delaytask;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of due tasks of one type and priority.
 * <p>
 * The method takes no parameter or one: a {@link DelayTask}, the raw {@code byte[]} parameters, a {@code String}
 * (the parameters as UTF-8), or any other type, read from the parameters as JSON. Its return value is ignored.
 * When it returns, the task is marked executed. When it throws, the task runs again after a back-off that grows
 * from {@link #initialDelay()} by {@link #multiplier()} up to {@link #maxDelay()}, until {@link #maxAttempts()}
 * attempts failed; then its status becomes {@link TaskStatus#DEAD}. A {@link RetryLaterException} chooses the delay
 * itself. Each due task runs on one instance of the application, in the starter's bounded thread pool
 * ({@code delay-task.listener.*}). At most one method may handle a given type and priority.
 * <p>
 * Unset retry attributes take their value from {@code delay-task.retry.*}. The duration attributes accept
 * {@code 30s} or {@code PT30S} forms and {@code ${...}} placeholders; the numeric attributes are plain values, but
 * {@link #concurrency()}, which takes placeholders too.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayTaskListener {

    /** Task type handled, from 0 to {@link DelayTask#MAX_TYPE}. */
    int taskType();

    /**
     * A readable name of the task type, such as {@code order-timeout} or {@code ${orders.timeout-name}}: shown
     * beside the number in the {@code task.name} tag of the starter's meters, the {@code delaytasks} endpoint, the
     * dashboard and log messages, while the number stays the key (tasks are added and stored by number). Letters,
     * digits, {@code .}, {@code _} and {@code -}, at most 64. Empty for none; the listeners of a type's other
     * priorities then take the one given. Two types of one name, or two names of one type, fail start-up.
     */
    String name() default "";

    /**
     * Priority handled, from 0 to {@link DelayTask#MAX_PRIORITY}. When handler threads are short, the listener of
     * the higher number of a type is claimed for first; types share the threads equally.
     */
    int priority() default 0;

    /** Attempts in all, the first included, before the task becomes DEAD; 1 means no retry, 0 the default. */
    int maxAttempts() default 0;

    /** Delay before the second attempt, such as {@code 1s}; empty for the default. */
    String initialDelay() default "";

    /** Factor applied to the delay after each further failure, at least 1; 0 for the default. */
    double multiplier() default 0;

    /** Longest delay between attempts, such as {@code 10m}; empty for the default. */
    String maxDelay() default "";

    /**
     * Most tasks of this listener an instance holds at once, running or claimed to run, such as {@code 4} or
     * {@code ${orders.concurrency}}: so that a slow downstream cannot take every thread of the shared pool
     * ({@code delay-task.listener.concurrency}), which bounds it too. Empty for no limit of its own.
     */
    String concurrency() default "";

    /**
     * Most tasks of this listener's queue held at once across every instance of the cluster, running or claimed to
     * run, such as {@code 3} or {@code ${partner.max-calls}}: for a partner whose API allows so many calls at once,
     * however many instances run. Redis hands out no more; a task held back waits, due, for room, and is not an
     * attempt. Applies with {@link #concurrency()}, which still bounds each instance. Instances should agree on it:
     * each claims by its own value. Empty for no cluster-wide limit.
     */
    String clusterConcurrency() default "";

    /**
     * Most tasks of this listener's queue handed out within a period across every instance of the cluster, as
     * {@code permits/period}, such as {@code 20/1s}, {@code 600/1m} or {@code ${partner.rate}}: for a partner whose
     * API allows so many calls a second, however many instances run. Redis hands out no more within any such period
     * (a sliding window, by the Redis server's clock); a task held back waits, due, and is not an attempt. A task
     * counts when it is claimed, also if it then does not run (handed back at a pause or a stop), so fewer may start.
     * Applies with the concurrency limits and with pause. Instances should agree on it: each claims by its own value,
     * and one without this listener (a {@code poll} elsewhere) claims without it. Empty for no cluster-wide rate.
     */
    String clusterRate() default "";

    /**
     * Longest run of the handler, such as {@code 5m} or {@code ${orders.timeout}}; empty for
     * {@code delay-task.listener.timeout}. Past it, the handler's thread is interrupted and the run counts as a
     * failed attempt, retried after the back-off and {@link TaskStatus#DEAD} after {@link #maxAttempts()}, with an
     * error that says it timed out. A handler that ignores the interrupt keeps its thread until it returns: it is
     * logged with its thread's stack and shown in the health details.
     */
    String timeout() default "";

}
