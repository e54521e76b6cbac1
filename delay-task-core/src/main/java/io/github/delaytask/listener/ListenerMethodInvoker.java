package io.github.delaytask.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import io.github.delaytask.DelayTask;
import io.github.delaytask.PayloadCodec;

import org.springframework.util.ReflectionUtils;

/**
 * Calls a listener method with the argument its signature asks for.
 */
final class ListenerMethodInvoker {

    private final ListenerEndpoint endpoint;

    private final ArgumentKind kind;

    private final PayloadCodec.Reader payloadReader;

    ListenerMethodInvoker(ListenerEndpoint endpoint, PayloadCodec codec) {
        this.endpoint = endpoint;
        Method method = endpoint.method();
        this.kind = kindOf(method);
        this.payloadReader = (this.kind == ArgumentKind.JSON) ? codec.reader(method.getGenericParameterTypes()[0])
                : null;
        ReflectionUtils.makeAccessible(method);
    }

    /** Fails start-up with a message naming the method when its signature is not one a listener may have. */
    static void validate(ListenerEndpoint endpoint) {
        Method method = endpoint.method();
        if (method.getParameterCount() > 1) {
            throw new IllegalStateException("@DelayTaskListener method " + endpoint.describe() + " takes "
                    + method.getParameterCount() + " parameters; it may take none, or one of DelayTask, byte[], "
                    + "String, or a type read from the task's JSON parameters");
        }
    }

    void invoke(DelayTask task) throws Exception {
        Object[] args = switch (this.kind) {
            case NONE -> new Object[0];
            case TASK -> new Object[] { task };
            case BYTES -> new Object[] { task.getParameters() };
            case STRING -> new Object[] { task.getParametersAsString() };
            case JSON -> new Object[] { readJson(task) };
        };
        try {
            this.endpoint.method().invoke(this.endpoint.bean(), args);
        }
        catch (InvocationTargetException ex) {
            Throwable cause = ex.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            throw new IllegalStateException("Listener " + this.endpoint.describe() + " failed", cause);
        }
    }

    private Object readJson(DelayTask task) {
        byte[] parameters = task.getParameters();
        if (parameters == null || parameters.length == 0) {
            return null;
        }
        try {
            return this.payloadReader.read(parameters);
        }
        catch (IllegalArgumentException ex) {
            // the codec's message never quotes the parameters, which may hold personal data
            throw new IllegalArgumentException("Cannot read the parameters of task " + task.getTaskId() + " ("
                    + parameters.length + " bytes): " + ex.getMessage());
        }
    }

    private static ArgumentKind kindOf(Method method) {
        if (method.getParameterCount() == 0) {
            return ArgumentKind.NONE;
        }
        Class<?> type = method.getParameterTypes()[0];
        if (type == DelayTask.class) {
            return ArgumentKind.TASK;
        }
        if (type == byte[].class) {
            return ArgumentKind.BYTES;
        }
        if (type == String.class) {
            return ArgumentKind.STRING;
        }
        return ArgumentKind.JSON;
    }

    private enum ArgumentKind {

        NONE, TASK, BYTES, STRING, JSON

    }

}
