package io.github.delaytask.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.github.delaytask.DelayTaskException;
import io.github.delaytask.TaskContextPropagator;
import org.jspecify.annotations.Nullable;

/**
 * The application's {@link TaskContextPropagator}s and the text a task carries in {@code taskinfo.trace_context}:
 * one {@code field=value} line per field, the trace's propagation fields as the tracer wrote them, and each
 * propagator's value under {@code ctx:<name>}, escaped so that any text fits on its line. Public for wiring.
 * <p>
 * Propagation fields are HTTP header names and values, so no trace field can be taken for a propagator's: a colon
 * is not allowed in a header name.
 */
public final class TaskContexts {

    /** Carries nothing of the application's. */
    public static final TaskContexts NONE = new TaskContexts(List.of());

    /** The width of the column. */
    static final int MAX_LENGTH = 1000;

    /**
     * The most the application's values take of it: the rest is the trace's, whose {@code traceparent} and
     * {@code tracestate} fit in it, so that a large tenant or user never costs a task its trace, and an add that
     * fits with observations off fits with them on.
     */
    static final int MAX_APPLICATION_LENGTH = 744;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private static final String PREFIX = "ctx:";

    private final List<TaskContextPropagator> propagators;

    /**
     * @param propagators what to carry from each add to its handler's runs
     * @throws IllegalArgumentException if a name is not one {@link TaskContextPropagator#name()} allows, or two
     * have one name
     */
    public TaskContexts(List<TaskContextPropagator> propagators) {
        Set<String> names = new HashSet<>();
        for (TaskContextPropagator propagator : propagators) {
            String name = propagator.name();
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("The name of " + propagator + " is '" + name + "': a "
                        + "TaskContextPropagator is named by 1 to 64 letters, digits, '.', '_' or '-'");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException("Two TaskContextPropagators are named '" + propagator.name()
                        + "': each needs a name of its own, under which its value is stored");
            }
        }
        this.propagators = List.copyOf(propagators);
    }

    /** Whether any context is carried, and so whether tasks need the column even without observations. */
    public boolean any() {
        return !this.propagators.isEmpty();
    }

    /**
     * The text to store with a task added on this thread.
     * @param traceFields the propagation fields of the add's trace, none when it is not observed
     * @return the text, or null when there is nothing to carry
     * @throws DelayTaskException if the application's context is longer than its share of the column: stored
     * without it, its handler would run for nobody, or for a default tenant
     */
    public @Nullable String capture(Map<String, String> traceFields) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (TaskContextPropagator propagator : this.propagators) {
            String value = propagator.capture();
            if (value != null) {
                fields.put(PREFIX + propagator.name(), escape(value));
            }
        }
        int length = length(fields);
        if (length > MAX_APPLICATION_LENGTH) {
            throw new DelayTaskException("The context to carry to the handler takes " + length + " characters, "
                    + "more than the " + MAX_APPLICATION_LENGTH + " it may take of taskinfo.trace_context: "
                    + fields.keySet().stream().map((key) -> key.substring(PREFIX.length())).toList()
                    + "; carry less, such as an id in place of an object");
        }
        for (Map.Entry<String, String> field : traceFields.entrySet()) {
            String key = field.getKey();
            String value = field.getValue();
            if (key.isEmpty() || key.indexOf('=') >= 0 || key.indexOf('\n') >= 0 || key.startsWith(PREFIX)
                    || value == null || value.indexOf('\n') >= 0) {
                continue;
            }
            // baggage most likely, which never fails an add: the trace's own fields come first, and have room
            if (length + ((length > 0) ? 1 : 0) + key.length() + 1 + value.length() <= MAX_LENGTH) {
                length += ((length > 0) ? 1 : 0) + key.length() + 1 + value.length();
                fields.put(key, value);
            }
        }
        return fields.isEmpty() ? null : encode(fields);
    }

    /**
     * Restores the application's context stored with a task on this thread; each propagator whose value the task
     * does not carry is told so, so that the handler runs without one whatever the thread held.
     * @param carried the text stored with the task, or null
     * @return what puts the thread back as it was; it undoes every propagator, and throws the first failure after
     */
    public TaskContextPropagator.Restored restore(@Nullable String carried) {
        if (this.propagators.isEmpty()) {
            return () -> {
            };
        }
        Map<String, String> fields = decode(carried);
        List<TaskContextPropagator.Restored> restored = new ArrayList<>(this.propagators.size());
        try {
            for (TaskContextPropagator propagator : this.propagators) {
                String value = fields.get(PREFIX + propagator.name());
                restored.add(propagator.restore((value != null) ? unescape(value) : null));
            }
        }
        catch (RuntimeException | Error ex) {
            try {
                close(restored);
            }
            catch (RuntimeException | Error undo) {
                ex.addSuppressed(undo);
            }
            throw ex;
        }
        return () -> close(restored);
    }

    /** The trace's propagation fields in the text stored with a task; none for null or foreign text. */
    public static Map<String, String> traceFields(@Nullable String carried) {
        Map<String, String> fields = decode(carried);
        fields.keySet().removeIf((key) -> key.startsWith(PREFIX));
        return fields;
    }

    /**
     * Undone in the reverse order, so that two propagators of one holder leave it as it was; one that fails leaves
     * the others to be undone, or the thread would carry a task's tenant into the next task.
     */
    private static void close(List<TaskContextPropagator.Restored> restored) {
        RuntimeException first = null;
        for (int i = restored.size() - 1; i >= 0; i--) {
            try {
                restored.get(i).close();
            }
            catch (RuntimeException ex) {
                if (first == null) {
                    first = ex;
                }
                else {
                    first.addSuppressed(ex);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static int length(Map<String, String> fields) {
        int length = 0;
        for (Map.Entry<String, String> field : fields.entrySet()) {
            length += ((length > 0) ? 1 : 0) + field.getKey().length() + 1 + field.getValue().length();
        }
        return length;
    }

    private static String encode(Map<String, String> fields) {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, String> field : fields.entrySet()) {
            if (text.length() > 0) {
                text.append('\n');
            }
            text.append(field.getKey()).append('=').append(field.getValue());
        }
        return text.toString();
    }

    private static Map<String, String> decode(@Nullable String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (text == null || text.isEmpty()) {
            return fields;
        }
        for (String line : text.split("\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                fields.put(line.substring(0, equals), line.substring(equals + 1));
            }
        }
        return fields;
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r");
    }

    private static String unescape(String value) {
        if (value.indexOf('\\') < 0) {
            return value;
        }
        StringBuilder text = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length()) {
                char next = value.charAt(++i);
                text.append((next == 'n') ? '\n' : (next == 'r') ? '\r' : next);
            }
            else {
                text.append(c);
            }
        }
        return text.toString();
    }

}
