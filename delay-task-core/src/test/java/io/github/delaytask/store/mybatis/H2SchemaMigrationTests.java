package io.github.delaytask.store.mybatis;

import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The versioned migrations of H2, in memory.
 */
class H2SchemaMigrationTests extends AbstractSchemaMigrationTests {

    @Override
    String platform() {
        return "h2";
    }

    @Override
    String create(String name) {
        return url(name);
    }

    @Override
    void drop(String name) throws SQLException {
        DriverManager.getConnection(url(name), username(), "").createStatement().execute("SHUTDOWN");
    }

    @Override
    String username() {
        return "sa";
    }

    private static String url(String name) {
        return "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
    }

}
