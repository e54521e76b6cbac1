package io.github.delaytask.store.mybatis;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Tag;

/**
 * The versioned migrations of PostgreSQL, each schema in the test database of the real PostgreSQL of 127.0.0.1: the
 * JDBC metadata, and each index's definition as PostgreSQL gives it (partial indexes included).
 */
@Tag("real-services")
class PostgreSqlSchemaMigrationTests extends AbstractSchemaMigrationTests {

    private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/test";

    @Override
    String platform() {
        return "postgresql";
    }

    @Override
    String create(String name) throws SQLException {
        execute("CREATE SCHEMA " + name);
        return SERVER + "?currentSchema=" + name;
    }

    @Override
    void drop(String name) throws SQLException {
        execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }

    @Override
    String username() {
        return "postgres";
    }

    @Override
    String describe(Connection connection, String table) throws SQLException {
        StringBuilder description = new StringBuilder(describeByMetaData(connection, table));
        try (PreparedStatement statement = connection.prepareStatement("SELECT indexname, indexdef FROM pg_indexes "
                + "WHERE schemaname = current_schema() AND tablename = ? ORDER BY indexname")) {
            statement.setString(1, table);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    description.append('\n')
                        .append(rows.getString(2).replace(connection.getSchema() + ".", "<schema>."));
                }
            }
        }
        return description.toString();
    }

    private static void execute(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(SERVER, "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

}
