package io.github.delaytask.listener;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.core.QueueId;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link DelayTaskListener} methods on beans and collects them as endpoints for the registry. Public for
 * wiring.
 * <p>
 * A method with a bad signature, or a second method for a type and priority already handled, fails start-up with a
 * message naming the methods.
 */
public class DelayTaskListenerAnnotationBeanPostProcessor implements BeanPostProcessor, EmbeddedValueResolverAware {

    private StringValueResolver valueResolver;

    private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

    private final Map<QueueId, ListenerEndpoint> endpoints = Collections.synchronizedMap(new LinkedHashMap<>());

    @Override
    public void setEmbeddedValueResolver(StringValueResolver resolver) {
        this.valueResolver = resolver;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
        if (this.nonAnnotatedClasses.contains(targetClass)) {
            return bean;
        }
        Map<Method, DelayTaskListener> annotated = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<DelayTaskListener>) (method) -> AnnotatedElementUtils
                    .findMergedAnnotation(method, DelayTaskListener.class));
        if (annotated.isEmpty()) {
            this.nonAnnotatedClasses.add(targetClass);
            return bean;
        }
        annotated.forEach((method, annotation) -> register(bean, beanName, method, annotation));
        return bean;
    }

    private void register(Object bean, String beanName, Method method, DelayTaskListener annotation) {
        Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        ListenerEndpoint endpoint = new ListenerEndpoint(new QueueId(annotation.taskType(), annotation.priority()),
                bean, beanName, invocable);
        endpoint = new ListenerEndpoint(endpoint.queue(), bean, beanName, invocable, retryOverrides(endpoint,
                annotation), concurrency(endpoint, "concurrency", annotation.concurrency()),
                concurrency(endpoint, "clusterConcurrency", annotation.clusterConcurrency()),
                clusterRate(endpoint, annotation.clusterRate()), timeout(endpoint, annotation.timeout()),
                name(endpoint, annotation.name()));
        if (annotation.taskType() < 0 || annotation.taskType() > DelayTask.MAX_TYPE || annotation.priority() < 0
                || annotation.priority() > DelayTask.MAX_PRIORITY) {
            throw new BeanInitializationException("@DelayTaskListener on " + endpoint.describe() + " has taskType "
                    + annotation.taskType() + " and priority " + annotation.priority() + "; both must be between 0 and "
                    + DelayTask.MAX_TYPE);
        }
        try {
            ListenerMethodInvoker.validate(endpoint);
        }
        catch (IllegalStateException ex) {
            throw new BeanInitializationException(ex.getMessage());
        }
        synchronized (this.endpoints) {
            ListenerEndpoint existing = this.endpoints.get(endpoint.queue());
            if (existing != null && !(existing.bean() == bean && existing.method().equals(invocable))) {
                throw new BeanInitializationException("Two @DelayTaskListener methods handle task type "
                        + annotation.taskType() + " priority " + annotation.priority() + ": " + existing.describe()
                        + " and " + endpoint.describe() + "; each type and priority may have one listener");
            }
            checkName(endpoint);
            this.endpoints.putIfAbsent(endpoint.queue(), endpoint);
        }
    }

    /** A type has one name, and a name one type: a dashboard or a meter showing it must mean one thing. */
    private void checkName(ListenerEndpoint endpoint) {
        if (endpoint.name() == null) {
            return;
        }
        for (ListenerEndpoint other : this.endpoints.values()) {
            if (other.name() == null) {
                continue;
            }
            boolean sameType = other.queue().taskType() == endpoint.queue().taskType();
            if (sameType != other.name().equals(endpoint.name())) {
                throw new BeanInitializationException("@DelayTaskListener on " + endpoint.describe() + " and on "
                        + other.describe() + (sameType ? " name task type " + endpoint.queue().taskType() + " twice"
                                : " give task types " + other.queue().taskType() + " and "
                                        + endpoint.queue().taskType() + " one name")
                        + "; a task type has one name, which names no other type");
            }
        }
    }

    private @Nullable String name(ListenerEndpoint endpoint, String value) {
        String resolved = resolve(value);
        if (!StringUtils.hasText(resolved)) {
            return null;
        }
        // a letter at least: a number would read as the number of another type, which stands where none is known
        if (!resolved.matches("[A-Za-z0-9._-]{1,64}") || !resolved.matches(".*[A-Za-z].*")) {
            throw new BeanInitializationException("@DelayTaskListener on " + endpoint.describe() + " has name '"
                    + value + "'" + (value.equals(resolved) ? "" : " ('" + resolved + "')") + "; a name is 1 to 64 "
                    + "letters, digits, '.', '_' or '-', with a letter among them");
        }
        return resolved;
    }

    private ListenerEndpoint.RetryOverrides retryOverrides(ListenerEndpoint endpoint, DelayTaskListener annotation) {
        if (annotation.maxAttempts() < 0 || (annotation.multiplier() != 0 && annotation.multiplier() < 1)) {
            throw new BeanInitializationException("@DelayTaskListener on " + endpoint.describe()
                    + " has maxAttempts " + annotation.maxAttempts() + " and multiplier " + annotation.multiplier()
                    + "; maxAttempts must be at least 1 (0 for the default) and multiplier at least 1 (0 for the "
                    + "default)");
        }
        return new ListenerEndpoint.RetryOverrides(annotation.maxAttempts(),
                duration(endpoint, "initialDelay", annotation.initialDelay()), annotation.multiplier(),
                duration(endpoint, "maxDelay", annotation.maxDelay()));
    }

    /** One of the listener's limits; 0 when it sets none. */
    private int concurrency(ListenerEndpoint endpoint, String attribute, String value) {
        String resolved = resolve(value);
        if (!StringUtils.hasText(resolved)) {
            return 0;
        }
        int concurrency;
        try {
            concurrency = Integer.parseInt(resolved.trim());
        }
        catch (NumberFormatException ex) {
            concurrency = 0;
        }
        if (concurrency < 1) {
            throw new BeanInitializationException("@DelayTaskListener on " + endpoint.describe()
                    + " has " + attribute + " '" + value + "'"
                    + (value.equals(resolved) ? "" : " ('" + resolved + "')")
                    + ", which is not a whole number of at least 1 (leave it empty for no limit)");
        }
        return concurrency;
    }

    /** The listener's rate across the cluster, {@code permits/period}; null when it sets none. */
    private ListenerEndpoint.@Nullable ClusterRate clusterRate(ListenerEndpoint endpoint, String value) {
        String resolved = resolve(value);
        if (!StringUtils.hasText(resolved)) {
            return null;
        }
        String[] parts = resolved.trim().split("/", 2);
        try {
            int permits = Integer.parseInt(parts[0].trim());
            Duration period = DurationFormatterUtils.detectAndParse(parts[1].trim());
            if (permits >= 1 && period.toMillis() >= 1) {
                return new ListenerEndpoint.ClusterRate(permits, period);
            }
        }
        catch (RuntimeException ex) {
            // refused below, with the value
        }
        throw new BeanInitializationException("@DelayTaskListener on " + endpoint.describe() + " has clusterRate '"
                + value + "'" + (value.equals(resolved) ? "" : " ('" + resolved + "')") + ", which is not a rate "
                + "such as 20/1s: a whole number of at least 1, a slash, and a period of at least 1ms");
    }

    private @Nullable Duration timeout(ListenerEndpoint endpoint, String value) {
        Duration timeout = duration(endpoint, "timeout", value);
        if (timeout != null && timeout.isZero()) {
            throw new BeanInitializationException("@DelayTaskListener on " + endpoint.describe() + " has timeout '"
                    + value + "'; a timeout must be longer than 0");
        }
        return timeout;
    }

    private String resolve(String value) {
        return (this.valueResolver != null && StringUtils.hasText(value))
                ? this.valueResolver.resolveStringValue(value) : value;
    }

    private Duration duration(ListenerEndpoint endpoint, String attribute, String value) {
        String resolved = resolve(value);
        if (!StringUtils.hasText(resolved)) {
            return null;
        }
        try {
            Duration duration = DurationFormatterUtils.detectAndParse(resolved.trim());
            if (duration.isNegative()) {
                throw new IllegalArgumentException("negative");
            }
            return duration;
        }
        catch (RuntimeException ex) {
            throw new BeanInitializationException("@DelayTaskListener on " + endpoint.describe() + " has " + attribute
                    + " '" + value + "', which is not a duration such as 30s or PT30S", ex);
        }
    }

    /**
     * The names the listeners found so far give their task types, by type; a type none names is missing. Public for
     * the meters and the endpoint.
     */
    public Map<Integer, String> taskTypeNames() {
        Map<Integer, String> names = new HashMap<>();
        synchronized (this.endpoints) {
            for (ListenerEndpoint endpoint : this.endpoints.values()) {
                if (endpoint.name() != null) {
                    names.put(endpoint.queue().taskType(), endpoint.name());
                }
            }
        }
        return names;
    }

    /** The endpoints found so far, each with the name of its task type, whichever of the type's listeners gave it. */
    List<ListenerEndpoint> endpoints() {
        Map<Integer, String> names = taskTypeNames();
        synchronized (this.endpoints) {
            List<ListenerEndpoint> found = new ArrayList<>(this.endpoints.size());
            for (ListenerEndpoint endpoint : this.endpoints.values()) {
                String name = names.get(endpoint.queue().taskType());
                found.add((endpoint.name() == null && name != null) ? endpoint.withName(name) : endpoint);
            }
            return found;
        }
    }

}
