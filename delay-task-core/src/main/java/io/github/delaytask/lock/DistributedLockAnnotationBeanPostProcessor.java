package io.github.delaytask.lock;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.delaytask.DistributedLock;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * Proxies beans with {@link DistributedLock} methods so that each call runs under its lock, and collects those
 * methods for the {@code scheduledlocks} endpoint. Public for wiring.
 * <p>
 * Like Spring's {@code @Async} and method validation post-processors it needs no auto-proxy creator: it adds its
 * advice to a proxy the bean already has (ahead of, so around, {@code @Transactional}), or creates one. It runs
 * before the {@code @Scheduled} post-processor, which must schedule the proxy, not the bean. A method a proxy
 * cannot lock (private, final, static, or missing from the interfaces of a JDK proxy), one returning a primitive, and
 * invalid attributes fail start-up with a message naming the bean and the method.
 */
public class DistributedLockAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements EnvironmentAware, SmartInitializingSingleton {

    /**
     * The lock names of the starter's own jobs: the reload of earlier versions and this one's, refresh, purge, the
     * recovery from Redis data loss, and the feed (names no application's job is likely to have taken before they
     * came).
     */
    static final List<String> RESERVED_NAMES = List.of("reload", "refresh", "purge", "recovery", "preload-feed",
            "full-reload");


    private final LockDefaults defaults;

    private final Function<String, Duration> durationParser;

    private final Supplier<LockedRunner> runner;

    private final LockedJobs jobs = new LockedJobs();

    private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

    private Environment environment = new StandardEnvironment();

    private LockedMethods methods;

    private ConfigurableBeanFactory beanFactory;

    /**
     * @param defaults durations of an annotation that leaves them empty
     * @param durationParser parses the duration attributes
     * @param runner the runner, looked up on first use since a post-processor must not pull in beans early; returns
     * {@code null} if the application has none
     */
    public DistributedLockAnnotationBeanPostProcessor(LockDefaults defaults, Function<String, Duration> durationParser,
            Supplier<LockedRunner> runner) {
        this.defaults = defaults;
        this.durationParser = durationParser;
        this.runner = SingletonSupplier.of(runner);
        // outermost on an existing proxy, so that the lock is held around a transaction, not inside it
        setBeforeExistingAdvisors(true);
        // after auto-proxy creators (highest precedence), whose proxies it extends, and before the @Scheduled
        // post-processor (lowest), so that scheduled methods are invoked through the proxy
        setOrder(Ordered.LOWEST_PRECEDENCE - 1);
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        this.beanFactory = (beanFactory instanceof ConfigurableBeanFactory configurable) ? configurable : null;
        this.methods = new LockedMethods(this.defaults, this.durationParser, placeholderResolver(),
                new BeanFactoryResolver(beanFactory));
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, DistributedLock.class, true),
                new DistributedLockInterceptor(this.methods, this.runner));
    }

    private StringValueResolver placeholderResolver() {
        // ${...} only: the embedded value resolvers of the bean factory (the application's placeholder configurer),
        // not its bean expression resolver, which would evaluate the name's #{...} once at start-up
        return (value) -> (this.beanFactory != null && this.beanFactory.hasEmbeddedValueResolver())
                ? this.beanFactory.resolveEmbeddedValue(value) : this.environment.resolveRequiredPlaceholders(value);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Object result = super.postProcessAfterInitialization(bean, beanName);
        if (bean instanceof AopInfrastructureBean) {
            return result;
        }
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
        if (this.nonAnnotatedClasses.contains(targetClass)) {
            return result;
        }
        Map<Method, DistributedLock> annotated = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<DistributedLock>) (method) -> AnnotatedElementUtils
                    .findMergedAnnotation(method, DistributedLock.class));
        if (annotated.isEmpty()) {
            this.nonAnnotatedClasses.add(targetClass);
            return result;
        }
        annotated.keySet().forEach((method) -> register(result, beanName, method, targetClass));
        return result;
    }

    private void register(Object bean, String beanName, Method method, Class<?> targetClass) {
        String where = "@DistributedLock on '" + beanName + "' method " + targetClass.getName() + "."
                + method.getName();
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers) || Modifier.isStatic(modifiers)) {
            throw new BeanInitializationException(where + " would have no effect: a proxy cannot intercept a "
                    + "private, final or static method");
        }
        Class<?> returnType = method.getReturnType();
        if (returnType.isPrimitive() && returnType != void.class) {
            throw new BeanInitializationException(where + " returns " + returnType + ", which a call skipped "
                    + "while another instance holds the lock cannot return; return void, an object or Optional");
        }
        Method invocable;
        LockedMethod locked;
        try {
            invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            locked = this.methods.get(method, targetClass);
        }
        catch (IllegalArgumentException | IllegalStateException ex) {
            throw new BeanInitializationException(where + ": " + ex.getMessage(), ex);
        }
        if (locked.nameExpression() == null && RESERVED_NAMES.contains(locked.name())) {
            // the job and the starter's own would skip each other's runs, silently
            throw new BeanInitializationException(where + " uses the lock name '" + locked.name() + "', which the "
                    + "starter's own jobs use (" + String.join(", ", RESERVED_NAMES) + "): choose another name");
        }
        if (this.beanFactory == null || (this.beanFactory.containsBean(beanName)
                && this.beanFactory.isSingleton(beanName))) {
            this.jobs.add(new LockedJob(beanName, bean, invocable, locked));
        }
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (!this.jobs.isEmpty() && this.runner.get() == null) {
            throw new IllegalStateException(this.jobs.all().get(0).describe() + " has @DistributedLock, which "
                    + "needs a DistributedLocks bean: the starter provides one when the application has a Redis "
                    + "connection or a DataSource (delay-task.lock.store)");
        }
    }

    /** The {@code @DistributedLock} methods of singleton beans found so far. */
    public LockedJobs getLockedJobs() {
        return this.jobs;
    }

}
