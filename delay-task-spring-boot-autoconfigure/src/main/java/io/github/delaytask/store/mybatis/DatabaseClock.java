package io.github.delaytask.store.mybatis;

import java.util.function.Supplier;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Reads the database server's time, so that every instance measures the preload window by the same clock.
 */
final class DatabaseClock {

    private static final String MYSQL = "SELECT CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)";

    private static final String STANDARD = "SELECT CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)";

    private final JdbcTemplate jdbc;

    private final Supplier<Dialect> dialect;

    DatabaseClock(JdbcTemplate jdbc, Supplier<Dialect> dialect) {
        this.jdbc = jdbc;
        this.dialect = dialect;
    }

    long currentTimeMillis() {
        String sql = queryFor(this.dialect.get());
        Long millis = this.jdbc.queryForObject(sql, Long.class);
        if (millis == null) {
            throw new IllegalStateException("The database returned no time for: " + sql);
        }
        return millis;
    }

    static String queryFor(Dialect dialect) {
        return (dialect == Dialect.MYSQL) ? MYSQL : STANDARD;
    }

}
