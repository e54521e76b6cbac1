package io.github.delaytask.listener;

import java.lang.reflect.Method;

import io.github.delaytask.redis.QueueId;

/**
 * One {@code @DelayTaskListener} method of one bean, with the queue it handles.
 * @param queue the type and priority handled
 * @param bean the bean, possibly a proxy
 * @param beanName the bean's name, for messages
 * @param method the method to invoke on the bean
 */
record ListenerEndpoint(QueueId queue, Object bean, String beanName, Method method) {

    String describe() {
        return "'" + this.beanName + "' method " + this.method.getDeclaringClass().getName() + "."
                + this.method.getName();
    }

}
