package io.github.delaytask.benchmark.system;

import java.sql.Timestamp;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * A SQL statement as a system sent it, with the parameters of one execution.
 * @param sql the statement, with {@code ?} placeholders
 * @param parameters the values bound, by position; {@code null} for SQL NULL
 * @param settings the {@code SET LOCAL} statements the system ran before it in the same transaction, if any
 */
public record CapturedStatement(String sql, List<Object> parameters, List<String> settings) {

    /**
     * The statement with its parameters written in as literals, for EXPLAIN.
     * @param bytesLiteral how the database writes a binary literal
     */
    public String inline(Function<String, String> bytesLiteral) {
        return replacePlaceholders((index) -> literal(this.parameters.get(index), bytesLiteral));
    }

    /** The statement with PostgreSQL's numbered placeholders, {@code $1} and on, for PREPARE. */
    public String numbered() {
        return replacePlaceholders((index) -> "$" + (index + 1));
    }

    /** The parameters as literals, for EXECUTE. */
    public List<String> literals(Function<String, String> bytesLiteral) {
        return this.parameters.stream().map((value) -> literal(value, bytesLiteral)).toList();
    }

    private String replacePlaceholders(IntFunction<String> placeholder) {
        StringBuilder sql = new StringBuilder(this.sql.length() + 16 * this.parameters.size());
        int parameter = 0;
        boolean quoted = false;
        for (char c : this.sql.toCharArray()) {
            if (c == '\'') {
                quoted = !quoted;
            }
            if (c == '?' && !quoted && parameter < this.parameters.size()) {
                sql.append(placeholder.apply(parameter++));
            }
            else {
                sql.append(c);
            }
        }
        return sql.toString();
    }

    private static String literal(Object value, Function<String, String> bytesLiteral) {
        if (value == null) {
            return "NULL";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        if (value instanceof byte[] bytes) {
            return bytesLiteral.apply(HexFormat.of().formatHex(bytes));
        }
        // an instant, so that the session's time zone cannot shift it
        String text = (value instanceof Timestamp timestamp) ? timestamp.toInstant().toString() : value.toString();
        return "'" + text.replace("'", "''") + "'";
    }

}
