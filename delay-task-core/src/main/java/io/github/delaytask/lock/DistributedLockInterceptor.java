package io.github.delaytask.lock;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.lang.Nullable;

/**
 * Runs a {@code @DistributedLock} method under its lock, or skips the call while another holder has the lock.
 */
final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

    private final LockedMethods methods;

    private final Supplier<LockedRunner> runner;

    DistributedLockInterceptor(LockedMethods methods, Supplier<LockedRunner> runner) {
        this.methods = methods;
        this.runner = runner;
    }

    @Override
    @Nullable
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass);
        LockedMethod locked = this.methods.get(method, targetClass);
        String name = this.methods.lockName(locked, method, invocation.getArguments());
        RunResult result = runner().run(name, locked.lockAtMostFor(), locked.lockAtLeastFor(),
                locked.hasFixedName(), invocation::proceed);
        switch (result.status()) {
            case RAN:
                return result.value();
            case FAILED:
                throw result.error();
            default:
                if (logger.isDebugEnabled()) {
                    logger.debug("Skipped " + method + ": lock '" + name + "' is held elsewhere");
                }
                return (method.getReturnType() == Optional.class) ? Optional.empty() : null;
        }
    }

    private LockedRunner runner() {
        LockedRunner runner = this.runner.get();
        if (runner == null) {
            throw new IllegalStateException("@DistributedLock needs a DistributedLocks bean, which the starter "
                    + "provides when the application has a Redis connection or a DataSource (delay-task.lock.store)");
        }
        return runner;
    }

}
