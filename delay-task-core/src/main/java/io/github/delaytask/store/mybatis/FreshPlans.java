package io.github.delaytask.store.mybatis;

import java.sql.SQLException;
import java.sql.Statement;

import org.postgresql.PGStatement;

import org.springframework.util.ClassUtils;

/**
 * Has PostgreSQL plan a statement at each execution rather than from a plan it cached for the connection.
 * {@code taskinfo} empties and refills all the time: after a few executions on a small table the server keeps a
 * generic plan of sequential scans, and runs it (per connection, until an autovacuum or ANALYZE happens to drop it)
 * once the table holds a million rows, where each cancel by key would read them all. The PostgreSQL driver only
 * prepares a statement on the server from its fifth execution on; a threshold of zero keeps it unnamed, planned with
 * its parameters each time. Other databases' statements are left as they are: MySQL and MariaDB keep no plans.
 */
final class FreshPlans {

    // a MariaDB or H2 application need not have the PostgreSQL driver
    private static final boolean POSTGRESQL_DRIVER = ClassUtils.isPresent("org.postgresql.PGStatement",
            FreshPlans.class.getClassLoader());

    private FreshPlans() {
    }

    /** Whether the statement is PostgreSQL's, whose plans {@link #apply} is for. */
    static boolean appliesTo(Statement statement) throws SQLException {
        return POSTGRESQL_DRIVER && PostgreSql.isPostgreSql(statement);
    }

    static void apply(Statement statement) throws SQLException {
        if (appliesTo(statement)) {
            PostgreSql.planEachTime(statement);
        }
    }

    /** Apart, so that the driver's class is loaded only where it is present. */
    private static final class PostgreSql {

        static boolean isPostgreSql(Statement statement) throws SQLException {
            return statement.isWrapperFor(PGStatement.class);
        }

        static void planEachTime(Statement statement) throws SQLException {
            statement.unwrap(PGStatement.class).setPrepareThreshold(0);
        }

    }

}
