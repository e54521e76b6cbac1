package io.github.delaytask.scale;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A PostgreSQL schema of the test's own in the database {@code test} on 127.0.0.1:5432 (user {@code postgres}, no
 * password), with the tables the workers record into: {@code runs} (one row per handler run),
 * {@code lock_tries} (one row per lock try) and {@code worker_stats} (counts, one row per worker). The delay-task tables are left to the applications. PostgreSQL rather
 * than H2, because the workers are separate JVMs.
 */
final class ScaleSchema implements AutoCloseable {

    private static final String DATABASE = "jdbc:postgresql://127.0.0.1:5432/test";

    private static final String USER = "postgres";

    private final String name = "delaytask_scale_" + UUID.randomUUID().toString().substring(0, 8);

    private final SingleConnectionDataSource dataSource;

    private final JdbcTemplate jdbc;

    ScaleSchema() {
        onDatabase("CREATE SCHEMA " + this.name);
        this.dataSource = new SingleConnectionDataSource(jdbcUrl("scale-test"), USER, "", true);
        this.jdbc = new JdbcTemplate(this.dataSource);
        this.jdbc.execute("CREATE TABLE runs (task_id BIGINT NOT NULL, task_type INT NOT NULL, priority INT NOT NULL, "
                + "worker VARCHAR(32) NOT NULL, started_at BIGINT NOT NULL)");
        this.jdbc.execute("CREATE TABLE lock_tries (worker VARCHAR(32) NOT NULL, name VARCHAR(64) NOT NULL, "
                + "taken BOOLEAN NOT NULL, tried_at BIGINT NOT NULL, try_micros BIGINT NOT NULL, held_ms BIGINT)");
        this.jdbc.execute("CREATE TABLE worker_stats (worker VARCHAR(32) NOT NULL PRIMARY KEY, claims BIGINT NOT NULL, "
                + "claims_with_tasks BIGINT NOT NULL, claimed_tasks BIGINT NOT NULL, pool_samples BIGINT NOT NULL, "
                + "pool_waiting BIGINT NOT NULL, pool_most_waiting BIGINT NOT NULL, written_at BIGINT NOT NULL)");
    }

    String name() {
        return this.name;
    }

    /**
     * The URL of this schema; PostgreSQL shows {@code applicationName} in {@code pg_stat_activity}.
     */
    String jdbcUrl(String applicationName) {
        return DATABASE + "?currentSchema=" + this.name + "&ApplicationName=" + applicationName(applicationName);
    }

    /** The name a connection made with {@code jdbcUrl(applicationName)} has in {@code pg_stat_activity}. */
    String applicationName(String applicationName) {
        return this.name + "/" + applicationName;
    }

    String user() {
        return USER;
    }

    JdbcTemplate jdbc() {
        return this.jdbc;
    }

    long count(String sql, Object... args) {
        Long count = this.jdbc.queryForObject(sql, Long.class, args);
        return (count != null) ? count : 0;
    }

    @Override
    public void close() {
        try {
            this.dataSource.destroy();
        }
        finally {
            onDatabase("DROP SCHEMA IF EXISTS " + this.name + " CASCADE");
        }
    }

    private static void onDatabase(String sql) {
        try (Connection connection = DriverManager.getConnection(DATABASE, USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

}
