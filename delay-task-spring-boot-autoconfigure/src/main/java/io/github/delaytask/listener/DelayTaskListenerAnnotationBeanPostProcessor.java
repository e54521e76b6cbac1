package io.github.delaytask.listener;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.redis.QueueId;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds {@link DelayTaskListener} methods on beans and collects them as endpoints for the registry. Public for
 * wiring.
 * <p>
 * A method with a bad signature, or a second method for a type and priority already handled, fails start-up with a
 * message naming the methods.
 */
public class DelayTaskListenerAnnotationBeanPostProcessor implements BeanPostProcessor {

    private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

    private final Map<QueueId, ListenerEndpoint> endpoints = Collections.synchronizedMap(new LinkedHashMap<>());

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
        ListenerEndpoint existing = this.endpoints.putIfAbsent(endpoint.queue(), endpoint);
        if (existing != null && !(existing.bean() == bean && existing.method().equals(invocable))) {
            throw new BeanInitializationException("Two @DelayTaskListener methods handle task type "
                    + annotation.taskType() + " priority " + annotation.priority() + ": " + existing.describe()
                    + " and " + endpoint.describe() + "; each type and priority may have one listener");
        }
    }

    /** The endpoints found so far. */
    List<ListenerEndpoint> endpoints() {
        synchronized (this.endpoints) {
            return new ArrayList<>(this.endpoints.values());
        }
    }

}
