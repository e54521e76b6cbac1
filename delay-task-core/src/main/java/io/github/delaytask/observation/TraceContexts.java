package io.github.delaytask.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The text form of a trace context in the {@code trace_context} column: one {@code field=value} line per field a
 * propagator wrote ({@code traceparent}, {@code tracestate}, {@code b3}, baggage). Propagation fields are HTTP
 * header names and values, which hold neither a line break nor, in a name, an equals sign.
 */
final class TraceContexts {

    /** The width of the column. */
    static final int MAX_LENGTH = 1000;

    private TraceContexts() {
    }

    /**
     * The fields as stored, or null when there are none. Fields that would make the text longer than the column are
     * left out (baggage, most likely: the trace's own fields come first), so that a large baggage never fails an add.
     */
    static @Nullable String encode(@Nullable Map<String, String> fields) {
        if (fields == null || fields.isEmpty()) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, String> field : fields.entrySet()) {
            String key = field.getKey();
            String value = field.getValue();
            if (key.isEmpty() || key.indexOf('=') >= 0 || key.indexOf('\n') >= 0 || value == null
                    || value.indexOf('\n') >= 0) {
                continue;
            }
            int length = ((text.length() > 0) ? 1 : 0) + key.length() + 1 + value.length();
            if (text.length() + length > MAX_LENGTH) {
                continue;
            }
            if (text.length() > 0) {
                text.append('\n');
            }
            text.append(key).append('=').append(value);
        }
        return (text.length() > 0) ? text.toString() : null;
    }

    /** The fields of a stored text; none for null or text that is not in the stored form. */
    static Map<String, String> decode(@Nullable String text) {
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

}
