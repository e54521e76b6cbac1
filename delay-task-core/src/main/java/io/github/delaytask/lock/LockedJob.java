package io.github.delaytask.lock;

import java.lang.reflect.Method;
import java.time.Duration;

import org.springframework.lang.Nullable;

/**
 * A {@code @DistributedLock} method of a singleton bean, found at start-up. Public for the {@code scheduledlocks}
 * endpoint.
 */
public final class LockedJob {

    private final String beanName;

    private final Object bean;

    private final Method method;

    private final LockedMethod lock;

    LockedJob(String beanName, Object bean, Method method, LockedMethod lock) {
        this.beanName = beanName;
        this.bean = bean;
        this.method = method;
        this.lock = lock;
    }

    /** The lock's name, or its SpEL template if the name depends on the arguments. */
    public String name() {
        return this.lock.name();
    }

    /** Whether the lock's name is the same on every call, so that its runs are recorded. */
    public boolean hasFixedName() {
        return this.lock.hasFixedName();
    }

    public String beanName() {
        return this.beanName;
    }

    /** The method, as invoked on the bean (which may be a proxy). */
    public Method method() {
        return this.method;
    }

    public Duration lockAtMostFor() {
        return this.lock.lockAtMostFor();
    }

    public Duration lockAtLeastFor() {
        return this.lock.lockAtLeastFor();
    }

    /** Why the job cannot be run by hand, or {@code null} if it can. */
    @Nullable
    public String whyNotRunnableByHand() {
        if (!hasFixedName()) {
            return "its lock name depends on the method arguments";
        }
        if (this.method.getParameterCount() > 0) {
            return "it takes parameters; only methods without parameters can be run by hand";
        }
        return null;
    }

    /** The bean and method, for messages and the endpoint. */
    public String describe() {
        return "'" + this.beanName + "' method " + this.method.getDeclaringClass().getName() + "."
                + this.method.getName();
    }

    Object bean() {
        return this.bean;
    }

}
