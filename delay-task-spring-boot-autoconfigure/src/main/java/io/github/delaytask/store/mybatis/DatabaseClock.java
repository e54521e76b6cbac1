package io.github.delaytask.store.mybatis;

import java.util.Locale;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Reads the database server's time, so that every instance measures the preload window by the same clock.
 */
final class DatabaseClock {

    private static final String MYSQL = "SELECT CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)";

    private static final String STANDARD = "SELECT CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)";

    private final JdbcTemplate jdbc;

    private volatile String query;

    DatabaseClock(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    long currentTimeMillis() {
        String sql = this.query;
        if (sql == null) {
            sql = queryFor(this.jdbc.execute((ConnectionCallback<String>) (connection) -> connection.getMetaData()
                .getDatabaseProductName()));
            this.query = sql;
        }
        Long millis = this.jdbc.queryForObject(sql, Long.class);
        if (millis == null) {
            throw new IllegalStateException("The database returned no time for: " + sql);
        }
        return millis;
    }

    static String queryFor(String productName) {
        String product = (productName != null) ? productName.toLowerCase(Locale.ROOT) : "";
        return (product.contains("mysql") || product.contains("mariadb")) ? MYSQL : STANDARD;
    }

}
