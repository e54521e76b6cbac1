package io.github.delaytask.benchmark.system;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A database server that the benchmark makes room in: a schema (PostgreSQL) or a database (MariaDB) for each
 * instance of a system, dropped afterwards.
 */
public abstract class Database {

    private final String url;

    private final String username;

    private final String password;

    private final Set<Storage> created = ConcurrentHashMap.newKeySet();

    Database(String url, String username, String password) {
        this.url = url;
        this.username = username;
        this.password = password;
    }

    public static Database postgresql(String url, String username, String password) {
        return new PostgreSql(url, username, password);
    }

    public static Database mariadb(String url, String username, String password) {
        return new MariaDb(url, username, password);
    }

    /** Such as {@code PostgreSQL}. */
    public abstract String name();

    /** The server's version. */
    public String version() throws SQLException {
        try (Connection connection = connect(this.url); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(versionQuery())) {
            result.next();
            return result.getString(1);
        }
    }

    String versionQuery() {
        return "SELECT version()";
    }

    public String url() {
        return this.url;
    }

    public String username() {
        return this.username;
    }

    public String password() {
        return this.password;
    }

    /** Create a schema or database of the given name. */
    Storage create(String name) throws SQLException {
        return create(createStatement(name), new Storage(this, name, storageUrl(name), false));
    }

    /**
     * Create a database of the given name, where the server keeps counters of each database (PostgreSQL's
     * {@code pg_stat_database}) that a schema in a shared database would not have for itself alone.
     */
    Storage createDatabase(String name) throws SQLException {
        return create(name);
    }

    final Storage create(String sql, Storage storage) throws SQLException {
        execute(sql);
        this.created.add(storage);
        return storage;
    }

    void drop(Storage storage) throws SQLException {
        execute(storage.ownDatabase() ? dropDatabaseStatement(storage.name()) : dropStatement(storage.name()));
        this.created.remove(storage);
    }

    /**
     * Transactions committed so far in the database of a storage made by {@link #createDatabase}, read-only ones
     * included, as the server counts them; empty where it does not.
     */
    OptionalLong transactionsCommitted(Storage storage) throws SQLException {
        return OptionalLong.empty();
    }

    /** The URL, with the database named in its path replaced. */
    final String urlOfDatabase(String name) {
        // jdbc:kind://host:port/database?options
        return this.url.replaceFirst("^(jdbc:[a-z]+://[^/?]+)(/[^?]*)?", "$1/" + name);
    }

    /** Drop what is left, when the benchmark is stopped half-way. */
    public void dropLeftovers() {
        for (Storage storage : List.copyOf(this.created)) {
            storage.close();
        }
    }

    Connection connect(String url) throws SQLException {
        return connect(url, Map.of());
    }

    Connection connect(String url, Map<String, String> settings) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", this.username);
        properties.setProperty("password", this.password);
        properties.putAll(settings);
        return DriverManager.getConnection(url, properties);
    }

    /**
     * Driver settings of the connection that polls whether tasks are finished: its queries must walk an index
     * whatever the planner believes of a table that was never analyzed.
     */
    Map<String, String> pollingSettings() {
        return Map.of();
    }

    abstract String createStatement(String name);

    abstract String dropStatement(String name);

    String dropDatabaseStatement(String name) {
        return dropStatement(name);
    }

    abstract String storageUrl(String name);

    /** A binary literal for hex digits. */
    abstract String bytesLiteral(String hex);

    /** The plan of one statement, one line each; selects are also run where the database can show that. */
    abstract List<String> explain(Connection connection, CapturedStatement statement) throws SQLException;

    /** What the database knows of the tables of the connection's schema; empty where it cannot say. */
    List<TableStatistics> statistics(Connection connection) throws SQLException {
        return List.of();
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = connect(this.url); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    static List<String> lines(ResultSet result) throws SQLException {
        List<String> lines = new ArrayList<>();
        int columns = result.getMetaData().getColumnCount();
        while (result.next()) {
            StringBuilder line = new StringBuilder();
            for (int column = 1; column <= columns; column++) {
                line.append((column > 1) ? " | " : "").append(result.getString(column));
            }
            lines.add(line.toString());
        }
        return lines;
    }

}
