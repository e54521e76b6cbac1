package io.github.delaytask.benchmark.system;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * A schema or database of one instance, and one connection of the benchmark's own to it: for counting, clearing
 * and EXPLAIN, apart from the system's pool.
 */
final class Storage implements AutoCloseable {

    private final Database database;

    private final String name;

    private final String url;

    private final boolean ownDatabase;

    private Connection connection;

    private Connection polling;

    /**
     * @param ownDatabase whether it is a database made by {@link Database#createDatabase}, rather than a schema
     */
    Storage(Database database, String name, String url, boolean ownDatabase) {
        this.database = database;
        this.name = name;
        this.url = url;
        this.ownDatabase = ownDatabase;
    }

    String name() {
        return this.name;
    }

    String url() {
        return this.url;
    }

    Database database() {
        return this.database;
    }

    boolean ownDatabase() {
        return this.ownDatabase;
    }

    /** See {@link Database#transactionsCommitted}. */
    OptionalLong transactionsCommitted() {
        try {
            return this.database.transactionsCommitted(this);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not read the transactions of " + this.name, ex);
        }
    }

    /** Whether a query returns a row; on a connection of its own, see {@link Database#pollingSettings()}. */
    synchronized boolean exists(String sql, Object... parameters) {
        try {
            if (this.polling == null) {
                this.polling = this.database.connect(this.url, this.database.pollingSettings());
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not connect to " + this.name, ex);
        }
        try (PreparedStatement statement = this.polling.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet result = statement.executeQuery()) {
                return result.next();
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not run " + sql + " in " + this.name, ex);
        }
    }

    synchronized void execute(String... statements) {
        for (String sql : statements) {
            try (Statement statement = connection().createStatement()) {
                statement.execute(sql);
            }
            catch (SQLException ex) {
                throw new IllegalStateException("Could not run " + sql + " in " + this.name, ex);
            }
        }
    }

    /** EXPLAIN of each statement but inserts, as a block of text headed by the statement. */
    synchronized List<String> explain(List<CapturedStatement> statements) {
        List<String> blocks = new ArrayList<>();
        for (CapturedStatement statement : statements) {
            if (statement.sql().strip().regionMatches(true, 0, "INSERT", 0, 6)) {
                continue; // every insert has the same plan
            }
            StringBuilder block = new StringBuilder(statement.inline(this.database::bytesLiteral)).append('\n');
            try {
                for (String line : this.database.explain(connection(), statement)) {
                    block.append("  ").append(line).append('\n');
                }
            }
            catch (SQLException ex) {
                block.append("  (no plan: ").append(ex.getMessage()).append(")\n");
            }
            blocks.add(block.toString());
        }
        return blocks;
    }

    synchronized List<TableStatistics> statistics() {
        try {
            return this.database.statistics(connection());
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not read the statistics of " + this.name, ex);
        }
    }

    private Connection connection() throws SQLException {
        if (this.connection == null || this.connection.isClosed()) {
            this.connection = this.database.connect(this.url);
        }
        return this.connection;
    }

    /** Close the connection and drop the schema or database. */
    @Override
    public synchronized void close() {
        try {
            if (this.connection != null) {
                this.connection.close();
            }
            if (this.polling != null) {
                this.polling.close();
            }
            this.database.drop(this);
        }
        catch (SQLException ex) {
            System.err.println("Could not drop " + this.name + ": " + ex.getMessage());
        }
    }

}
