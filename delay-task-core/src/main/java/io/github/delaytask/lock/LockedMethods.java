package io.github.delaytask.lock;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.delaytask.DistributedLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.ParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.lang.Nullable;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Resolves the {@code @DistributedLock} of a method once and caches it, and evaluates lock names on each call, as
 * Spring's cache abstraction does for its keys.
 */
final class LockedMethods {

    private static final Log logger = LogFactory.getLog(LockedMethods.class);

    private final Map<AnnotatedElementKey, LockedMethod> cache = new ConcurrentHashMap<>(64);

    private final SpelExpressionParser parser = new SpelExpressionParser();

    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

    private final LockDefaults defaults;

    private final Function<String, Duration> durationParser;

    private final StringValueResolver placeholders;

    private final BeanResolver beans;

    LockedMethods(LockDefaults defaults, Function<String, Duration> durationParser, StringValueResolver placeholders,
            BeanResolver beans) {
        this.defaults = defaults;
        this.durationParser = durationParser;
        this.placeholders = placeholders;
        this.beans = beans;
    }

    /**
     * The lock of a method.
     * @throws IllegalArgumentException if an attribute of its annotation is invalid
     */
    LockedMethod get(Method method, @Nullable Class<?> targetClass) {
        return this.cache.computeIfAbsent(new AnnotatedElementKey(method, targetClass), (key) -> resolve(method));
    }

    /** The name of the lock for one call. */
    String lockName(LockedMethod locked, Method method, Object[] arguments) {
        Expression expression = locked.nameExpression();
        if (expression == null) {
            return locked.name();
        }
        // no root object: a name built from the bean's own state would differ between instances
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, arguments,
                this.parameterNames);
        context.setBeanResolver(this.beans);
        String name = expression.getValue(context, String.class);
        Assert.state(StringUtils.hasText(name), () -> "@DistributedLock name '" + locked.name() + "' of " + method
                + " evaluated to an empty name");
        return name;
    }

    private LockedMethod resolve(Method method) {
        DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        Assert.state(annotation != null, () -> "No @DistributedLock on " + method);
        String name = this.placeholders.resolveStringValue(annotation.name());
        Assert.isTrue(StringUtils.hasText(name), "name must not be empty");
        Duration lockAtMostFor = duration("lockAtMostFor", annotation.lockAtMostFor(), this.defaults.lockAtMostFor());
        Duration lockAtLeastFor = duration("lockAtLeastFor", annotation.lockAtLeastFor(),
                this.defaults.lockAtLeastFor());
        Assert.isTrue(lockAtMostFor.toMillis() > 0, () -> "lockAtMostFor must be positive, not " + lockAtMostFor);
        Assert.isTrue(!lockAtLeastFor.isNegative(), () -> "lockAtLeastFor must not be negative: " + lockAtLeastFor);
        Assert.isTrue(lockAtLeastFor.compareTo(lockAtMostFor) <= 0, () -> "lockAtLeastFor (" + lockAtLeastFor
                + ") must not be longer than lockAtMostFor (" + lockAtMostFor + ")");
        Expression expression = expression(name);
        if (expression != null && method.getParameterCount() > 0
                && this.parameterNames.getParameterNames(method) == null) {
            logger.warn("Parameter names of " + method + " are not available, so #name in its @DistributedLock name '"
                    + name + "' is null; compile with -parameters or use #p0, #p1 ...");
        }
        return new LockedMethod(name, expression, lockAtMostFor, lockAtLeastFor);
    }

    @Nullable
    private Expression expression(String name) {
        if (!name.contains(ParserContext.TEMPLATE_EXPRESSION.getExpressionPrefix())) {
            return null;
        }
        try {
            return this.parser.parseExpression(name, ParserContext.TEMPLATE_EXPRESSION);
        }
        catch (ParseException ex) {
            throw new IllegalArgumentException("name '" + name + "' is not a valid SpEL template: " + ex.getMessage(),
                    ex);
        }
    }

    private Duration duration(String attribute, String value, Duration defaultValue) {
        String resolved = this.placeholders.resolveStringValue(value);
        if (!StringUtils.hasText(resolved)) {
            return defaultValue;
        }
        try {
            return this.durationParser.apply(resolved.trim());
        }
        catch (RuntimeException ex) {
            throw new IllegalArgumentException(
                    attribute + " '" + resolved + "' is not a duration such as 30s, 500ms or PT30S", ex);
        }
    }

}
