package io.github.delaytask.store.mybatis;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The statements whose SQL differs between databases: the hot paths, the clock and the locking read. One
 * implementation per database, chosen once by {@link #detect}, as db-scheduler's {@code JdbcCustomization} does.
 * <p>
 * Every implementation keeps the same guarantees: a claim takes only tasks that are due, that no consumer holds and
 * that no other transaction has locked (a cancel in a long business transaction, say: such a task is left for a
 * later claim rather than waited for), and bumps their version, so that a concurrent change of a task and a claim
 * have exactly one winner; a finish deletes only the version its claim produced.
 */
interface DatabaseStatements {

    /** The columns of a live task, in the order {@link #storedTask} maps them. */
    String LIVE_COLUMNS = "task_id, task_type, priority, execute_time, parameters, version, attempts, lease_until";

    /**
     * The columns of a live task with its trace context, in the order {@link #tracedTask} maps them; read only while
     * observations are on, so that a schema without the column serves every other application.
     */
    String TRACED_COLUMNS = LIVE_COLUMNS + ", trace_context";

    /**
     * Whether a batch of new tasks without business keys is stored by one statement, which commits on its own when
     * the caller has no transaction; otherwise a batch needs a transaction.
     */
    boolean insertsInOneStatement();

    /**
     * Store both rows of new tasks.
     * @param rows the rows to store, with their ids
     * @param tasks the same tasks as asked for, for their business keys
     */
    void insertAll(List<StoredTask> rows, List<NewTask> tasks);

    /** See {@link io.github.delaytask.store.TaskStore#claimDue}. */
    List<StoredTask> claimDue(Collection<Long> taskIds, long now, long leaseUntil);

    /**
     * Finish claimed tasks as executed: each leaves {@code taskinfo} if it still has its claim's version, and its
     * log says executed, after as many runs as its claim was.
     * @param claimed claims of distinct tasks
     * @return the ids of the tasks finished
     */
    Collection<Long> finishExecuted(List<StoredTask> claimed);

    /**
     * The table a renewal of leases updates, with what keeps the database to the rows of its id list: MySQL and
     * MariaDB may read a small table whole, and under REPEATABLE READ lock, and wait for, every row of it.
     */
    default String leaseRenewalTable() {
        return "taskinfo";
    }

    /** One page of the reload: live tasks due up to the horizon, in (execute time, id) order after a position. */
    List<StoredTask> findDue(long horizon, long afterExecuteTime, long afterTaskId, int limit);

    /**
     * The id of the live task with a business key, as last committed, whatever the caller transaction's snapshot:
     * after losing the race for a key, the winner's task must be found even under REPEATABLE READ.
     */
    Long findCommittedIdByBizKey(String bizKey);

    /** The database server's time, epoch ms. */
    long currentTimeMillis();

    /**
     * An SQL expression of the database server's time in epoch ms, which statements that finish a task write into
     * {@code finished_at}: the clock {@link #currentTimeMillis()} reads, so that the purge compares like with like.
     */
    String clockExpression();

    /**
     * Delete, in a transaction of its own, at most {@code limit} rows of the log with the given final status, oldest
     * first: those finished before {@code finishedBefore} or, when {@code unstamped}, those without a finishing time
     * (finished before the schema had one) and due before it. Never a row of status 0.
     * @return how many rows were deleted; fewer than the limit once no more are that old
     */
    int deleteFinished(int status, long finishedBefore, boolean unstamped, int limit);

    /**
     * The statements of the database the template reaches: PostgreSQL, MySQL and MariaDB, or H2.
     * @param traced whether adds write and claims read the trace context
     */
    static DatabaseStatements detect(JdbcTemplate jdbc, PlatformTransactionManager transactionManager,
            boolean traced) {
        String product = jdbc.execute((ConnectionCallback<String>) (connection) -> connection.getMetaData()
            .getDatabaseProductName());
        String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
        if (name.contains("postgres")) {
            return new PostgreSqlStatements(jdbc, transactionManager, traced);
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return new MySqlStatements(jdbc, transactionManager, traced);
        }
        if (name.contains("h2")) {
            return new H2Statements(jdbc, transactionManager, traced);
        }
        throw new IllegalStateException("delay-task supports PostgreSQL, MySQL, MariaDB and H2, not " + product);
    }

    /** Maps the columns of {@link #LIVE_COLUMNS}, in that order. */
    static StoredTask storedTask(ResultSet row, int number) throws SQLException {
        return liveTask(row, null);
    }

    /** Maps the columns of {@link #TRACED_COLUMNS}, in that order. */
    static StoredTask tracedTask(ResultSet row, int number) throws SQLException {
        return liveTask(row, row.getString(9));
    }

    private static StoredTask liveTask(ResultSet row, String traceContext) throws SQLException {
        long leaseUntil = row.getLong(8);
        Long lease = row.wasNull() ? null : leaseUntil;
        return new StoredTask(row.getLong(1), row.getInt(2), row.getInt(3), row.getLong(4), row.getBytes(5),
                row.getInt(6), row.getInt(7), lease, traceContext);
    }

}
