package io.github.delaytask.benchmark.system;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * MariaDB (or MySQL): a database for each instance, named in the URL's path.
 */
final class MariaDb extends Database {

    MariaDb(String url, String username, String password) {
        super(url, username, password);
    }

    @Override
    public String name() {
        return "MariaDB";
    }

    @Override
    String createStatement(String name) {
        return "CREATE DATABASE " + name;
    }

    @Override
    String dropStatement(String name) {
        return "DROP DATABASE IF EXISTS " + name;
    }

    @Override
    String storageUrl(String name) {
        return urlOfDatabase(name);
    }

    @Override
    String bytesLiteral(String hex) {
        return "X'" + hex + "'";
    }

    @Override
    List<String> explain(Connection connection, CapturedStatement captured) throws SQLException {
        // plain EXPLAIN only: MariaDB's ANALYZE would carry out an UPDATE or DELETE
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("EXPLAIN " + captured.inline(this::bytesLiteral))) {
            List<String> lines = new ArrayList<>();
            lines.add("id | select_type | table | type | possible_keys | key | key_len | ref | rows | Extra");
            lines.addAll(lines(result));
            return lines;
        }
    }

}
