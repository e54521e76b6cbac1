package io.github.delaytask.benchmark.system;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * PostgreSQL: a schema for each instance, reached with {@code currentSchema}.
 */
final class PostgreSql extends Database {

    private static final String TABLES = "SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema()";

    private static final String STATISTICS = """
            SELECT s.relname, c.reltuples, coalesce(s.seq_scan, 0), coalesce(s.seq_tup_read, 0),
                   coalesce(s.idx_scan, 0), greatest(s.last_analyze, s.last_autoanalyze)
            FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
            WHERE s.schemaname = current_schema()
            ORDER BY s.relname""";

    PostgreSql(String url, String username, String password) {
        super(url, username, password);
    }

    @Override
    public String name() {
        return "PostgreSQL";
    }

    /**
     * With no statistics the planner takes "a few rows match" for a sequential scan and a sort, which on a full
     * table every 2 ms is load that the system under test would pay for.
     */
    @Override
    Map<String, String> pollingSettings() {
        return Map.of("options", "-c enable_seqscan=off");
    }

    @Override
    String versionQuery() {
        return "SHOW server_version";
    }

    @Override
    String createStatement(String name) {
        return "CREATE SCHEMA " + name;
    }

    @Override
    String dropStatement(String name) {
        return "DROP SCHEMA IF EXISTS " + name + " CASCADE";
    }

    @Override
    Storage createDatabase(String name) throws SQLException {
        return create("CREATE DATABASE " + name, new Storage(this, name, urlOfDatabase(name), true));
    }

    @Override
    String dropDatabaseStatement(String name) {
        // the instances are stopped by then; FORCE ends any connection a pool still holds
        return "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)";
    }

    /** {@code xact_commit} of {@code pg_stat_database}, read from the benchmark's database, not the one counted. */
    @Override
    OptionalLong transactionsCommitted(Storage storage) throws SQLException {
        if (!storage.ownDatabase()) {
            return OptionalLong.empty();
        }
        try (Connection connection = connect(url());
                PreparedStatement statement = connection
                    .prepareStatement("SELECT xact_commit FROM pg_stat_database WHERE datname = ?")) {
            statement.setString(1, storage.name());
            try (ResultSet result = statement.executeQuery()) {
                return result.next() ? OptionalLong.of(result.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    @Override
    String storageUrl(String name) {
        return url() + (url().contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    @Override
    String bytesLiteral(String hex) {
        return "'\\x" + hex + "'::bytea";
    }

    /**
     * The plan for the statement's values, and the generic plan: the one a prepared statement (which the JDBC driver
     * makes of a statement after a few runs, and of every batch) may keep, chosen without the values.
     */
    @Override
    List<String> explain(Connection connection, CapturedStatement captured) throws SQLException {
        if (captured.settings().isEmpty()) {
            return plans(connection, captured);
        }
        // under the planner settings the system ran the statement with, in a transaction that ends them
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            List<String> lines = new ArrayList<>();
            for (String setting : captured.settings()) {
                statement.execute(setting);
                lines.add("(as run: after " + setting + ")");
            }
            lines.addAll(plans(connection, captured));
            return lines;
        }
        finally {
            connection.rollback();
            connection.setAutoCommit(autoCommit);
        }
    }

    private List<String> plans(Connection connection, CapturedStatement captured) throws SQLException {
        String sql = captured.inline(this::bytesLiteral);
        String lower = sql.strip().toLowerCase(Locale.ROOT);
        // run only what reads: EXPLAIN ANALYZE would carry out an UPDATE or DELETE
        boolean reads = lower.startsWith("select") && !lower.contains("for update");
        List<String> lines = new ArrayList<>();
        try (Statement statement = connection.createStatement()) {
            lines.addAll(query(statement, (reads ? "EXPLAIN (ANALYZE, BUFFERS) " : "EXPLAIN ") + sql,
                    (result) -> result.getString(1)));
            if (captured.parameters().isEmpty()) {
                return lines;
            }
            lines.add("generic plan:");
            try {
                statement.execute("PREPARE dtbench_plan AS " + captured.numbered());
                statement.execute("SET plan_cache_mode = force_generic_plan");
                String execute = "EXPLAIN EXECUTE dtbench_plan("
                        + String.join(", ", captured.literals(this::bytesLiteral)) + ")";
                query(statement, execute, (result) -> result.getString(1)).forEach((line) -> lines.add("  " + line));
            }
            catch (SQLException ex) {
                lines.add("  (not shown: " + ex.getMessage() + ")");
            }
            finally {
                statement.execute("RESET plan_cache_mode");
                statement.execute("DEALLOCATE ALL");
            }
        }
        return lines;
    }

    @Override
    List<TableStatistics> statistics(Connection connection) throws SQLException {
        // counted first (n_live_tup lags and drifts), and published, so that the counting scans are not the next
        // reading's news
        Map<String, Long> rows = new LinkedHashMap<>();
        try (Statement statement = connection.createStatement()) {
            for (String table : query(statement, TABLES, (result) -> result.getString(1))) {
                String count = "SELECT count(*) FROM " + table;
                rows.put(table, query(statement, count, (result) -> result.getLong(1)).get(0));
            }
            statement.execute("SELECT pg_stat_force_next_flush()");
            return query(statement, STATISTICS, (result) -> new TableStatistics(result.getString(1),
                    result.getDouble(2), rows.getOrDefault(result.getString(1), 0L), result.getLong(3),
                    result.getLong(4), result.getLong(5),
                    (result.getString(6) != null) ? result.getString(6) : "never"));
        }
    }

    private static <T> List<T> query(Statement statement, String sql, Row<T> row) throws SQLException {
        List<T> values = new ArrayList<>();
        try (ResultSet result = statement.executeQuery(sql)) {
            while (result.next()) {
                values.add(row.read(result));
            }
        }
        return values;
    }

    @FunctionalInterface
    private interface Row<T> {

        T read(ResultSet result) throws SQLException;

    }

}
