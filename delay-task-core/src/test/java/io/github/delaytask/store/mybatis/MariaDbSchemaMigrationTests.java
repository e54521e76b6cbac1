package io.github.delaytask.store.mybatis;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Tag;

/**
 * The versioned migrations of MySQL and MariaDB, on the real MariaDB of 127.0.0.1: tables compared as
 * {@code SHOW CREATE TABLE} gives them, comments and the order of columns and keys included.
 */
@Tag("real-services")
class MariaDbSchemaMigrationTests extends AbstractSchemaMigrationTests {

    private static final String SERVER = "jdbc:mariadb://127.0.0.1:3306/test";

    @Override
    String platform() {
        return "mysql";
    }

    @Override
    String create(String name) throws SQLException {
        execute("CREATE DATABASE " + name);
        return "jdbc:mariadb://127.0.0.1:3306/" + name;
    }

    @Override
    void drop(String name) throws SQLException {
        execute("DROP DATABASE IF EXISTS " + name);
    }

    @Override
    String username() {
        return "root";
    }

    @Override
    String describe(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SHOW CREATE TABLE " + table)) {
            rows.next();
            return rows.getString(2);
        }
    }

    private static void execute(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(SERVER, "root", "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

}
