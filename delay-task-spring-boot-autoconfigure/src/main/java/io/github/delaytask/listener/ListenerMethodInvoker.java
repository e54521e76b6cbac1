package io.github.delaytask.listener;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.delaytask.DelayTask;

import org.springframework.util.ReflectionUtils;

/**
 * Calls a listener method with the argument its signature asks for.
 */
final class ListenerMethodInvoker {

    private final ListenerEndpoint endpoint;

    private final ArgumentKind kind;

    private final JavaType jsonType;

    private final ObjectMapper objectMapper;

    ListenerMethodInvoker(ListenerEndpoint endpoint, ObjectMapper objectMapper) {
        this.endpoint = endpoint;
        this.objectMapper = objectMapper;
        Method method = endpoint.method();
        this.kind = kindOf(method);
        this.jsonType = (this.kind == ArgumentKind.JSON)
                ? objectMapper.constructType(method.getGenericParameterTypes()[0]) : null;
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

    private Object readJson(DelayTask task) throws IOException {
        byte[] parameters = task.getParameters();
        if (parameters == null || parameters.length == 0) {
            return null;
        }
        try {
            return this.objectMapper.readValue(parameters, this.jsonType);
        }
        catch (JsonProcessingException ex) {
            // neither the parameters nor Jackson's message, which quotes them: they may hold personal data, and they
            // end up in logs and in last_error
            JsonLocation location = ex.getLocation();
            throw new IllegalArgumentException("Cannot read the parameters of task " + task.getTaskId() + " ("
                    + parameters.length + " bytes) as " + this.jsonType + ": " + ex.getClass().getSimpleName()
                    + ((location != null) ? " at line " + location.getLineNr() + ", column " + location.getColumnNr()
                            : ""));
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
