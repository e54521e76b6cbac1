package io.github.delaytask.store.mybatis;

import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import org.jspecify.annotations.Nullable;

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
    String LIVE_COLUMNS = "task_id, task_type, priority, execute_time, parameters, version, attempts, lease_until, "
            + "biz_key";

    /**
     * The columns of a live task with its carried context, in the order {@link #tracedTask} maps them; read only
     * while observations are on or the application carries context, so that a schema without the column serves
     * every other application.
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
     * {@link io.github.delaytask.store.TaskStore#claimDueInQueues} in one statement, where the database can lock and
     * update in one; {@code null} where it cannot, and {@link QueueClaims} reads, then claims. Either way in the
     * transaction of {@link QueueClaims}, at its isolation.
     * @param counts the most tasks to claim from each queue, each at least 1
     */
    default @Nullable List<StoredTask> claimDueInQueues(Map<QueueId, Integer> counts, long now, long leaseUntil) {
        return null;
    }

    /**
     * Finish claimed tasks as executed: each leaves {@code taskinfo} if it still has its claim's version, and its
     * log says executed, after as many runs as its claim was. Where a database keeps a lock on a row that a statement
     * only looked at (MySQL and MariaDB under REPEATABLE READ: a cancel in a business transaction that found the task
     * running), the tasks whose rows another transaction holds are left, not waited for.
     * @param claimed claims of distinct tasks
     * @return the ids of the tasks finished, and of those held by another transaction
     */
    FinishedIds finishExecuted(List<StoredTask> claimed);

    /**
     * @param finished the ids of the tasks finished
     * @param held the ids of tasks still claimed whose rows another transaction holds
     */
    record FinishedIds(Collection<Long> finished, Collection<Long> held) {

        static FinishedIds all(Collection<Long> finished) {
            return new FinishedIds(finished, List.of());
        }

    }

    /**
     * Extend the leases of claims still held, never shortening one. Waits for no row another transaction holds: a
     * cancel in a business transaction that found its task running must not hold up the renewal of every other.
     * @return how many leases were extended
     */
    int renewLeases(Collection<StoredTask> running, long leaseUntil);

    /**
     * A renewal by an id list, for the databases that lock no row a statement only looked at (PostgreSQL, H2): the
     * ids lead to the primary key, and the pairs then keep to the claims still held.
     */
    static int renewLeasesByIdList(JdbcTemplate jdbc, TableNames tables, Collection<StoredTask> running,
            long leaseUntil) {
        StringJoiner ids = new StringJoiner(", ", "UPDATE " + tables.tasks()
                + " SET lease_until = GREATEST(lease_until, ?) WHERE task_id IN (", ")");
        StringJoiner claims = new StringJoiner(", ", " AND (task_id, version) IN (", ") AND lease_until IS NOT NULL");
        List<Object> args = new ArrayList<>(1 + running.size() * 3);
        args.add(leaseUntil);
        for (StoredTask task : running) {
            ids.add("?");
            args.add(task.taskId());
        }
        for (StoredTask task : running) {
            claims.add("(?, ?)");
            args.add(task.taskId());
            args.add(task.version());
        }
        return jdbc.update(ids + claims.toString(), args.toArray());
    }

    /**
     * Mark a dead task cancelled, by its primary key alone: MySQL and MariaDB may otherwise take the status index,
     * and under REPEATABLE READ lock the gap where new tasks' logs go until the caller commits.
     * @return whether the task was dead
     */
    boolean cancelDead(long taskId);

    /**
     * See {@link #cancelDead}: the version moves on, so that a requeue that read the dead row before this loses its
     * version check.
     * @param logs the log table, with what keeps the database to its primary key
     */
    static boolean cancelDead(JdbcTemplate jdbc, String logs, String clock, long taskId) {
        return jdbc.update("UPDATE " + logs + " SET status = ?, version = version + 1, finished_at = (" + clock
                + ") WHERE task_id = ? AND status = ?", TaskStatus.CANCELLED.code(), taskId,
                TaskStatus.DEAD.code()) > 0;
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
            boolean traced, TableNames tables) {
        return switch (platform(jdbc)) {
            case "postgresql" -> new PostgreSqlStatements(jdbc, transactionManager, traced, tables);
            case "mysql" -> new MySqlStatements(jdbc, transactionManager, traced, tables);
            default -> new H2Statements(jdbc, transactionManager, traced, tables);
        };
    }

    /**
     * The expression of the database's clock, epoch ms, in the SQL of the database behind the template: the clock of
     * {@link #currentTimeMillis()}.
     */
    static String clockExpression(JdbcTemplate jdbc) {
        return switch (platform(jdbc)) {
            case "postgresql" -> PostgreSqlStatements.CLOCK;
            case "mysql" -> MySqlStatements.CLOCK;
            default -> H2Statements.CLOCK;
        };
    }

    /**
     * The database behind the template: {@code postgresql}, {@code mysql} (MariaDB too) or {@code h2}.
     * @throws IllegalStateException for any other
     */
    static String platform(JdbcTemplate jdbc) {
        String product = jdbc.execute((ConnectionCallback<String>) (connection) -> connection.getMetaData()
            .getDatabaseProductName());
        String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
        if (name.contains("postgres")) {
            return "postgresql";
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return "mysql";
        }
        if (name.contains("h2")) {
            return "h2";
        }
        throw new IllegalStateException("delay-task supports PostgreSQL, MySQL, MariaDB and H2, not " + product);
    }

    /** Maps the columns of {@link #LIVE_COLUMNS}, in that order. */
    static StoredTask storedTask(ResultSet row, int number) throws SQLException {
        return liveTask(row, null);
    }

    /** Maps the columns of {@link #TRACED_COLUMNS}, in that order. */
    static StoredTask tracedTask(ResultSet row, int number) throws SQLException {
        return liveTask(row, row.getString(10));
    }

    private static StoredTask liveTask(ResultSet row, String traceContext) throws SQLException {
        long leaseUntil = row.getLong(8);
        Long lease = row.wasNull() ? null : leaseUntil;
        return new StoredTask(row.getLong(1), row.getInt(2), row.getInt(3), row.getLong(4), row.getBytes(5),
                row.getInt(6), row.getInt(7), lease, traceContext, bizKey(row.getObject(9)));
    }

    /** A business key as read: the bytes of its UTF-8 on MySQL and MariaDB, text elsewhere. */
    private static String bizKey(Object key) {
        return (key instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : (String) key;
    }

}
