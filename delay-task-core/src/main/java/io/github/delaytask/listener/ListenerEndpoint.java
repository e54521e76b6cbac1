package io.github.delaytask.listener;

import java.lang.reflect.Method;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.RetryPolicy;
import org.jspecify.annotations.Nullable;

/**
 * One {@code @DelayTaskListener} method of one bean, with the queue it handles.
 * @param queue the type and priority handled
 * @param bean the bean, possibly a proxy
 * @param beanName the bean's name, for messages
 * @param method the method to invoke on the bean
 * @param retry the retry attributes of its annotation, applied over the defaults
 * @param concurrency most tasks of the listener held at once by an instance; 0 for no limit of its own
 * @param clusterConcurrency most tasks of the listener's queue held at once across every instance; 0 for no such
 * limit
 * @param clusterRate most tasks of the listener's queue claimed within a period across every instance, or null for
 * no such rate
 * @param timeout longest run of its handler, or null for the listeners' default
 * @param name the readable name of its task type, or null
 */
record ListenerEndpoint(QueueId queue, Object bean, String beanName, Method method, RetryOverrides retry,
        int concurrency, int clusterConcurrency, @Nullable ClusterRate clusterRate,
        java.time.@Nullable Duration timeout, @Nullable String name) {

    ListenerEndpoint(QueueId queue, Object bean, String beanName, Method method) {
        this(queue, bean, beanName, method, RetryOverrides.NONE, 0, 0, null, null, null);
    }

    /** The same listener with its type's name, which another listener of the type gave. */
    ListenerEndpoint withName(String typeName) {
        return new ListenerEndpoint(this.queue, this.bean, this.beanName, this.method, this.retry, this.concurrency,
                this.clusterConcurrency, this.clusterRate, this.timeout, typeName);
    }

    /** The longest run of its handler: its own, or the given default. */
    java.time.Duration timeout(java.time.Duration defaultTimeout) {
        return (this.timeout != null) ? this.timeout : defaultTimeout;
    }

    RetryPolicy retryPolicy(RetryPolicy defaults) {
        return defaults.withOverrides(this.retry.maxAttempts(), this.retry.initialDelay(), this.retry.multiplier(),
                this.retry.maxDelay());
    }

    /** The listener for messages: its method, and the name of its task type if it has one. */
    String describe() {
        return describeMethod() + ((this.name != null) ? " (" + this.name + ")" : "");
    }

    /** The bean and method alone, as the endpoint lists them beside the type's name. */
    String describeMethod() {
        return "'" + this.beanName + "' method " + this.method.getDeclaringClass().getName() + "."
                + this.method.getName();
    }

    /**
     * Retry attributes as resolved from the annotation; 0 or null where it left them unset.
     */
    record RetryOverrides(int maxAttempts, java.time.Duration initialDelay, double multiplier,
            java.time.Duration maxDelay) {

        static final RetryOverrides NONE = new RetryOverrides(0, null, 0, null);

    }

    /**
     * A rate across the cluster: at most {@code permits} tasks claimed within any {@code period}.
     * @param permits the most tasks within a period, at least 1
     * @param period the period, at least a millisecond
     */
    record ClusterRate(int permits, java.time.Duration period) {
    }

}
