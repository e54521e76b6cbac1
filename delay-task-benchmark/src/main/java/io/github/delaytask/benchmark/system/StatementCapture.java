package io.github.delaytask.benchmark.system;

import java.io.Closeable;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import javax.sql.DataSource;

/**
 * Wraps a system's {@link DataSource} so that, while recording, the statements it prepares are kept with the
 * parameters of an execution (the one with most parameters, else the latest): the real statements of the real code,
 * to EXPLAIN afterwards. While not recording, it hands out the driver's statements untouched.
 */
final class StatementCapture {

    private final Predicate<String> filter;

    private final Map<String, CapturedStatement> statements = new LinkedHashMap<>();

    private volatile boolean recording;

    /**
     * @param filter which statements to keep, by their SQL
     */
    StatementCapture(Predicate<String> filter) {
        this.filter = filter;
    }

    void recording(boolean on) {
        this.recording = on;
    }

    synchronized void forget() {
        this.statements.clear();
    }

    /** The statements kept, one of each shape, in the order first seen. */
    synchronized List<CapturedStatement> statements() {
        return new ArrayList<>(this.statements.values());
    }

    /** The data source, wrapped; {@code close()} closes the target when it is closeable. */
    DataSource wrap(DataSource target) {
        return proxy(DataSource.class, target, (method, args) -> {
            Object result = method.invoke(target, args);
            return (result instanceof Connection connection) ? wrap(connection) : result;
        }, Closeable.class);
    }

    private Connection wrap(Connection target) {
        // planner settings the system made for its transaction: the plans are shown under the same
        List<String> settings = new ArrayList<>();
        return proxy(Connection.class, target, (method, args) -> {
            Object result = method.invoke(target, args);
            String name = method.getName();
            if (name.equals("commit") || name.equals("rollback") || name.equals("close")) {
                settings.clear();
            }
            if (this.recording && result instanceof PreparedStatement statement
                    && name.equals("prepareStatement") && this.filter.test((String) args[0])) {
                return wrap(statement, (String) args[0], List.copyOf(settings));
            }
            if (this.recording && result instanceof Statement statement && name.equals("createStatement")) {
                return wrap(statement, settings);
            }
            return result;
        });
    }

    private Statement wrap(Statement target, List<String> settings) {
        return proxy(Statement.class, target, (method, args) -> {
            if (method.getName().equals("execute") && args != null && args[0] instanceof String sql
                    && sql.strip().regionMatches(true, 0, "SET LOCAL ", 0, 10)) {
                settings.add(sql.strip());
            }
            return method.invoke(target, args);
        });
    }

    private PreparedStatement wrap(PreparedStatement target, String sql, List<String> settings) {
        List<Object> parameters = new ArrayList<>();
        return proxy(PreparedStatement.class, target, (method, args) -> {
            String name = method.getName();
            if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer index) {
                while (parameters.size() < index) {
                    parameters.add(null);
                }
                parameters.set(index - 1, name.equals("setNull") ? null : args[1]);
            }
            else if (name.startsWith("execute") || name.equals("addBatch")) {
                keep(sql, parameters, settings);
            }
            return method.invoke(target, args);
        });
    }

    private synchronized void keep(String sql, List<Object> parameters, List<String> settings) {
        // one entry per shape: IN lists of any length, and numbers written into the SQL (LIMIT 7), count as one;
        // the longest IN list is kept, as the planner may scan the table for a long one and not for a short one
        String shape = sql.replaceAll("\\?(\\s*,\\s*\\?)+", "?").replaceAll("\\b\\d+\\b", "N");
        CapturedStatement kept = this.statements.get(shape);
        if (kept == null || kept.parameters().size() <= parameters.size()) {
            List<Object> values = Collections.unmodifiableList(new ArrayList<>(parameters));
            this.statements.put(shape, new CapturedStatement(sql, values, settings));
        }
    }

    /** A proxy of the interfaces that hands calls to {@code call}, and Closeable.close() to the target. */
    @SuppressWarnings("unchecked")
    static <T> T proxy(Class<T> type, Object target, Call call, Class<?>... more) {
        Class<?>[] interfaces = new Class<?>[more.length + 1];
        interfaces[0] = type;
        System.arraycopy(more, 0, interfaces, 1, more.length);
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Closeable.class) {
                if (target instanceof AutoCloseable closeable) {
                    closeable.close();
                }
                return null;
            }
            try {
                return call.invoke(method, args);
            }
            catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        };
        return (T) Proxy.newProxyInstance(StatementCapture.class.getClassLoader(), interfaces, handler);
    }

    @FunctionalInterface
    interface Call {

        Object invoke(Method method, Object[] args) throws Throwable;

    }

}
