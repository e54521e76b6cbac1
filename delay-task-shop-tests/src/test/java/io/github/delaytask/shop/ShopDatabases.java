package io.github.delaytask.shop;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ScriptUtils;

/**
 * A master and a slave database of the shop's, created for one test class and dropped again. Both get the
 * starter's tables, so that a task written to the wrong one would not show as a failure of its own.
 */
final class ShopDatabases implements AutoCloseable {

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);

    /** The URL of a database, with {@code %s} for its name. */
    private final String url;

    private final String username;

    /** The platform of the starter's schema script. */
    private final String platform;

    /** Where databases are created and dropped, or null when they come and go with their first connection. */
    private final String server;

    /** The statements that create and drop a database, with {@code %s} for its name. */
    private final String create;

    private final String drop;

    private ShopDatabases(String url, String username, String platform, String server, String create, String drop) {
        this.url = url;
        this.username = username;
        this.platform = platform;
        this.server = server;
        this.create = create;
        this.drop = drop;
    }

    static ShopDatabases h2() {
        return new ShopDatabases("jdbc:h2:mem:%s;DB_CLOSE_DELAY=-1", "sa", "h2", null, null, null);
    }

    static ShopDatabases mariaDb() {
        return new ShopDatabases("jdbc:mariadb://127.0.0.1:3306/%s", "root", "mysql",
                "jdbc:mariadb://127.0.0.1:3306/test", "CREATE DATABASE %s", "DROP DATABASE IF EXISTS %s");
    }

    static ShopDatabases postgreSql() {
        return new ShopDatabases("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=%s", "postgres", "postgresql",
                "jdbc:postgresql://127.0.0.1:5432/test", "CREATE SCHEMA %s", "DROP SCHEMA IF EXISTS %s CASCADE");
    }

    private String name(String database) {
        return "shop_" + database + "_" + this.suffix;
    }

    String url(String database) {
        return this.url.formatted(name(database));
    }

    /** Create both databases with the starter's tables and the shop's orders. */
    ShopDatabases start() {
        for (String database : List.of("master", "slave")) {
            if (this.server != null) {
                execute(this.server, this.create.formatted(name(database)));
            }
            try (Connection connection = connect(database)) {
                ScriptUtils.executeSqlScript(connection,
                        new ClassPathResource("META-INF/delay-task/sql/schema-" + this.platform + ".sql"));
                try (Statement statement = connection.createStatement()) {
                    statement.execute("CREATE TABLE shop_order (id BIGINT NOT NULL PRIMARY KEY, "
                            + "tenant_id BIGINT NOT NULL, order_no VARCHAR(64) NOT NULL, status VARCHAR(16) NOT NULL)");
                }
            }
            catch (SQLException ex) {
                throw new IllegalStateException(ex);
            }
        }
        return this;
    }

    /** The dynamic-datasource properties of the two databases, the master being the primary. */
    List<String> properties() {
        List<String> properties = new ArrayList<>();
        properties.add("spring.datasource.dynamic.primary=master");
        for (String database : List.of("master", "slave")) {
            String prefix = "spring.datasource.dynamic.datasource." + database + ".";
            properties.add(prefix + "url=" + url(database));
            properties.add(prefix + "username=" + this.username);
            properties.add(prefix + "password=");
        }
        return properties;
    }

    /** Delete the rows of the starter's tables and the shop's orders in both databases. */
    void clear() {
        for (String database : List.of("master", "slave")) {
            execute(url(database), "DELETE FROM taskinfo");
            execute(url(database), "DELETE FROM taskinfo_logs");
            execute(url(database), "DELETE FROM taskinfo_lock");
            execute(url(database), "DELETE FROM shop_order");
        }
    }

    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(url(database), this.username, "");
    }

    /** How many rows the query counts in the given database. */
    long count(String database, String sql) {
        try (Connection connection = connect(database); Statement statement = connection.createStatement()) {
            var rows = statement.executeQuery(sql);
            rows.next();
            return rows.getLong(1);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public void close() {
        for (String database : List.of("master", "slave")) {
            execute((this.server != null) ? this.server : url(database),
                    (this.server != null) ? this.drop.formatted(name(database)) : "SHUTDOWN");
        }
    }

    void execute(String url, String sql) {
        try (Connection connection = DriverManager.getConnection(url, this.username, "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

}
