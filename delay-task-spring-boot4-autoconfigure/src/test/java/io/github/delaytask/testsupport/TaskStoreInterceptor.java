package io.github.delaytask.testsupport;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

import io.github.delaytask.store.TaskStore;

import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps the application's {@link TaskStore} so that a test can count, hold up, fail or follow its calls, as a
 * database that is slow, fails or answers a moment late would: register a subclass as a bean.
 */
public abstract class TaskStoreInterceptor implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof TaskStore store)) {
            return bean;
        }
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { TaskStore.class },
                (proxy, method, args) -> intercept(method.getName(), args, () -> {
                    try {
                        return method.invoke(store, args);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                }));
    }

    /**
     * One call of the store.
     * @param method the name of the store's method
     * @param args its arguments, {@code null} for none
     * @param store makes the call itself
     * @return what the call returns
     */
    protected abstract Object intercept(String method, Object[] args, Call store) throws Throwable;

    /** The call of the real store. */
    @FunctionalInterface
    public interface Call {

        Object proceed() throws Throwable;

    }

}
