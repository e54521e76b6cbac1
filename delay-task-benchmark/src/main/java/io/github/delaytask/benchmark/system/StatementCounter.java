package io.github.delaytask.benchmark.system;

import java.io.Closeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;

import javax.sql.DataSource;

/**
 * Wraps a system's {@link DataSource} to count what the scenarios of several queues report, from the SQL the
 * instance sends, so that the counts hold whatever the starter's dispatcher looks like inside:
 * <ul>
 * <li>claim statements: executions of an {@code UPDATE} of {@code taskinfo} that sets {@code lease_until} to a
 * parameter, the one statement a claim must send whatever else it reads first (a JDBC batch is one execution);</li>
 * <li>transactions: commits of connections outside autocommit, and statement executions in autocommit (each its own
 * transaction; a JDBC batch is one), read-only ones included.</li>
 * </ul>
 */
final class StatementCounter {

    private static final Pattern TASKINFO = Pattern.compile("\\btaskinfo\\s", Pattern.CASE_INSENSITIVE);

    private static final Pattern LEASE_SET = Pattern.compile("\\blease_until\\s*=\\s*\\?");

    private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private final LongAdder claims = new LongAdder();

    private final LongAdder transactions = new LongAdder();

    long claims() {
        return this.claims.sum();
    }

    long transactions() {
        return this.transactions.sum();
    }

    void reset() {
        this.claims.reset();
        this.transactions.reset();
    }

    /** The data source, wrapped; {@code close()} closes the target when it is closeable. */
    DataSource wrap(DataSource target) {
        return StatementCapture.proxy(DataSource.class, target, (method, args) -> {
            Object result = method.invoke(target, args);
            return (result instanceof Connection connection) ? wrap(connection) : result;
        }, Closeable.class);
    }

    private Connection wrap(Connection target) {
        return StatementCapture.proxy(Connection.class, target, (method, args) -> {
            String name = method.getName();
            if (name.equals("commit") && !target.getAutoCommit()) {
                this.transactions.increment();
            }
            Object result = method.invoke(target, args);
            if (result instanceof PreparedStatement statement && name.equals("prepareStatement")) {
                return wrap(PreparedStatement.class, statement, target, isClaim((String) args[0]));
            }
            if (result instanceof Statement statement && name.equals("createStatement")) {
                return wrap(Statement.class, statement, target, false);
            }
            return result;
        });
    }

    private <S extends Statement> S wrap(Class<S> type, S target, Connection connection, boolean claim) {
        return StatementCapture.proxy(type, target, (method, args) -> {
            if (EXECUTIONS.contains(method.getName())) {
                if (claim || (args != null && args[0] instanceof String sql && isClaim(sql))) {
                    this.claims.increment();
                }
                if (connection.getAutoCommit()) {
                    this.transactions.increment();
                }
            }
            return method.invoke(target, args);
        });
    }

    static boolean isClaim(String sql) {
        // the table name followed by a space leaves out taskinfo_logs; MySQL's claim updates a join of its id list
        // with taskinfo
        return sql.stripLeading().regionMatches(true, 0, "UPDATE ", 0, 7) && TASKINFO.matcher(sql).find()
                && LEASE_SET.matcher(sql).find();
    }

}
