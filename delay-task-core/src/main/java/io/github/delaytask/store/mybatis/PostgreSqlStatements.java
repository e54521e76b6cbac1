package io.github.delaytask.store.mybatis;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The statements of PostgreSQL 12 or later: the hot paths one statement each, from arrays. A statement outside a transaction commits on its own, so each
 * costs one round trip where the portable form costs three or four (begin, statements, commit): what makes the
 * difference between a few thousand and ten thousand tasks a second on a small machine.
 * <p>
 * Each statement that reads a table is planned at every execution, never from a plan the server cached:
 * {@code taskinfo} empties and refills all the time, and a plan cached while it was small (sequential scans, nested
 * loops over them) would be kept, per connection, until the next ANALYZE, making every claim and acknowledgement read
 * the whole table. The insert reads none, so its plan is cached as usual.
 */
final class PostgreSqlStatements implements DatabaseStatements {

    // the rows are locked by the subquery, skipping those another transaction holds (a cancel in a long business
    // transaction): a claim never waits, and two claims of one task cannot both win
    private static final String CLAIM = "UPDATE taskinfo t SET version = t.version + 1, lease_until = ? FROM (";

    private static final String CLAIMED = ") c WHERE t.task_id = c.task_id RETURNING t.task_id, t.task_type, "
            + "t.priority, t.execute_time, t.parameters, t.version, t.attempts, t.lease_until, t.biz_key";

    private static final String TRACED = ", t.trace_context";

    private static final String CLAIM_BY_IDS = "UPDATE taskinfo t SET version = t.version + 1, lease_until = ? "
            + "WHERE t.task_id = ANY (ARRAY(";

    private static final String CLAIMED_BY_IDS = ")) RETURNING t.task_id, t.task_type, t.priority, t.execute_time, "
            + "t.parameters, t.version, t.attempts, t.lease_until, t.biz_key";

    private static final String CLAIM_DUE = CLAIM + "SELECT task_id FROM taskinfo WHERE task_id = ANY (?) "
            + "AND execute_time <= ? AND (lease_until IS NULL OR lease_until <= ?) FOR UPDATE SKIP LOCKED" + CLAIMED;

    private static final String CLAIM_DUE_TRACED = CLAIM_DUE + TRACED;

    // each queue's earliest due rows held by no consumer, through the (execute_time, task_id) index, locked as the
    // claim by id locks them; a subquery per queue, each with its own limit, so that one queue's backlog takes no
    // other's places
    private static final String QUEUE_DUE_IDS = "SELECT task_id FROM (SELECT task_id FROM taskinfo "
            + "WHERE execute_time <= ? AND (lease_until IS NULL OR lease_until <= ?) AND task_type = ? "
            + "AND priority = ? ORDER BY execute_time, task_id LIMIT ? FOR UPDATE SKIP LOCKED) q";

    static final String CLOCK = "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)";

    // no join whose size the planner has to guess: on a table never analyzed it guesses one row, and a nested loop
    // over a sequential scan then reads the whole log table once per task
    private static final String FINISH_EXECUTED = "WITH done AS (DELETE FROM taskinfo WHERE task_id = ANY (?) "
            + "AND version = (?::int[])[array_position(?::bigint[], task_id)] RETURNING task_id), "
            + "logged AS (UPDATE taskinfo_logs SET status = ?, attempts = (?::int[])[array_position(?::bigint[], "
            + "task_id)], last_error = NULL, version = version + 1, finished_at = " + CLOCK + " "
            + "WHERE task_id IN (SELECT task_id FROM done)) "
            + "SELECT task_id FROM done";

    private static final String INSERT_ALL = "WITH task AS (INSERT INTO taskinfo (task_id, task_type, priority, "
            + "execute_time, parameters, version, attempts, biz_key) SELECT task_id, task_type, priority, "
            + "execute_time, parameters, 1, 0, biz_key FROM unnest(?::bigint[], ?::int[], ?::int[], ?::bigint[], "
            + "?::bytea[], ?::varchar[]) AS n (task_id, task_type, priority, execute_time, parameters, biz_key) "
            + "RETURNING task_id, task_type, priority, execute_time, parameters, biz_key) "
            + "INSERT INTO taskinfo_logs (task_id, task_type, priority, execute_time, parameters, version, status, "
            + "attempts, biz_key) SELECT task_id, task_type, priority, execute_time, parameters, 1, ?, 0, biz_key "
            + "FROM task";

    // the same with the carried context, an eighth array: only while observations are on or the application carries
    // context, so that a schema without the column serves every other application
    private static final String INSERT_ALL_TRACED = "WITH task AS (INSERT INTO taskinfo (task_id, task_type, "
            + "priority, execute_time, parameters, version, attempts, biz_key, trace_context) SELECT task_id, "
            + "task_type, priority, execute_time, parameters, 1, 0, biz_key, trace_context FROM unnest(?::bigint[], "
            + "?::int[], ?::int[], ?::bigint[], ?::bytea[], ?::varchar[], ?::varchar[]) AS n (task_id, task_type, "
            + "priority, execute_time, parameters, biz_key, trace_context) "
            + "RETURNING task_id, task_type, priority, execute_time, parameters, biz_key) "
            + "INSERT INTO taskinfo_logs (task_id, task_type, priority, execute_time, parameters, version, status, "
            + "attempts, biz_key) SELECT task_id, task_type, priority, execute_time, parameters, 1, ?, 0, biz_key "
            + "FROM task";

    private static final String FIND_DUE = "SELECT task_id, task_type, priority, execute_time, NULL, version, "
            + "attempts, lease_until, NULL FROM taskinfo WHERE execute_time <= ? AND (execute_time, task_id) > (?, ?) "
            + "ORDER BY execute_time, task_id LIMIT ?";

    // the rows are picked oldest first by the purge's partial index (status <> 0 lets the planner use it whatever
    // the parameter), and found again by key: an array rather than a join whose size the planner would guess. A row
    // another transaction holds (a requeue) is skipped rather than waited for
    private static final String DELETE_FINISHED = "DELETE FROM taskinfo_logs WHERE task_id = ANY (ARRAY(SELECT task_id "
            + "FROM taskinfo_logs WHERE status = ? AND status <> 0 AND finished_at < ? ORDER BY finished_at LIMIT ? "
            + "FOR UPDATE SKIP LOCKED))";

    private static final String DELETE_UNSTAMPED = "DELETE FROM taskinfo_logs WHERE task_id = ANY (ARRAY(SELECT "
            + "task_id FROM taskinfo_logs WHERE status = ? AND status <> 0 AND finished_at IS NULL "
            + "AND execute_time < ? ORDER BY execute_time LIMIT ? FOR UPDATE SKIP LOCKED))";

    private final JdbcTemplate jdbc;

    private final TransactionTemplate ownTransaction;

    private final boolean traced;

    private final TableNames tables;

    PostgreSqlStatements(JdbcTemplate jdbc, PlatformTransactionManager transactionManager, boolean traced,
            TableNames tables) {
        this.jdbc = jdbc;
        this.tables = tables;
        this.traced = traced;
        this.ownTransaction = new TransactionTemplate(transactionManager);
        this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    @Override
    public boolean insertsInOneStatement() {
        return true;
    }

    @Override
    public List<StoredTask> claimDue(Collection<Long> taskIds, long now, long leaseUntil) {
        return this.jdbc.query((connection) -> {
            PreparedStatement statement = prepare(connection,
                    this.tables.sql(this.traced ? CLAIM_DUE_TRACED : CLAIM_DUE));
            statement.setLong(1, leaseUntil);
            statement.setArray(2, bigints(connection, taskIds));
            statement.setLong(3, now);
            statement.setLong(4, now);
            return statement;
        }, this.traced ? DatabaseStatements::tracedTask : DatabaseStatements::storedTask);
    }

    /**
     * One statement rather than a locking read per queue and then the claim. The ids are gathered into an array
     * first, so that however the planner joins, the locking reads run once: read again, they would pass over the rows
     * this statement just claimed and claim more than asked.
     */
    @Override
    public List<StoredTask> claimDueInQueues(Map<QueueId, Integer> counts, long now, long leaseUntil) {
        List<Map.Entry<QueueId, Integer>> queues = List.copyOf(counts.entrySet());
        StringJoiner due = new StringJoiner(" UNION ALL ");
        queues.forEach((queue) -> due.add(QUEUE_DUE_IDS));
        String sql = CLAIM_BY_IDS + due + CLAIMED_BY_IDS + (this.traced ? TRACED : "");
        return this.jdbc.query((connection) -> {
            PreparedStatement statement = prepare(connection, this.tables.sql(sql));
            int index = 1;
            statement.setLong(index++, leaseUntil);
            for (Map.Entry<QueueId, Integer> queue : queues) {
                statement.setLong(index++, now);
                statement.setLong(index++, now);
                statement.setInt(index++, queue.getKey().taskType());
                statement.setInt(index++, queue.getKey().priority());
                statement.setInt(index++, queue.getValue());
            }
            return statement;
        }, this.traced ? DatabaseStatements::tracedTask : DatabaseStatements::storedTask);
    }

    @Override
    public FinishedIds finishExecuted(List<StoredTask> claimed) {
        Long[] ids = new Long[claimed.size()];
        Integer[] versions = new Integer[claimed.size()];
        Integer[] attempts = new Integer[claimed.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = claimed.get(i).taskId();
            versions[i] = claimed.get(i).version();
            attempts[i] = claimed.get(i).attempt();
        }
        // PostgreSQL keeps no lock on a row a statement only looked at: nothing here is held for long
        return FinishedIds.all(this.jdbc.query((connection) -> {
            PreparedStatement statement = prepare(connection, this.tables.sql(FINISH_EXECUTED));
            Array idArray = connection.createArrayOf("bigint", ids);
            statement.setArray(1, idArray);
            statement.setArray(2, connection.createArrayOf("integer", versions));
            statement.setArray(3, idArray);
            statement.setInt(4, TaskStatus.EXECUTED.code());
            statement.setArray(5, connection.createArrayOf("integer", attempts));
            statement.setArray(6, idArray);
            return statement;
        }, (row, number) -> row.getLong(1)));
    }

    @Override
    public int renewLeases(Collection<StoredTask> running, long leaseUntil) {
        return DatabaseStatements.renewLeasesByIdList(this.jdbc, this.tables, running, leaseUntil);
    }

    @Override
    public boolean cancelDead(long taskId) {
        return DatabaseStatements.cancelDead(this.jdbc, this.tables.logs(), CLOCK, taskId);
    }

    /**
     * Both rows of new tasks, from arrays: one statement whatever the number, where a JDBC batch costs the server a
     * statement per row and table. It commits on its own unless the caller has a transaction.
     */
    @Override
    public void insertAll(List<StoredTask> tasks, List<NewTask> newTasks) {
        int size = tasks.size();
        String[] bizKeys = new String[size];
        Long[] ids = new Long[size];
        Integer[] types = new Integer[size];
        Integer[] priorities = new Integer[size];
        Long[] executeTimes = new Long[size];
        byte[][] parameters = new byte[size][];
        String[] traceContexts = new String[size];
        for (int i = 0; i < size; i++) {
            StoredTask task = tasks.get(i);
            ids[i] = task.taskId();
            types[i] = task.taskType();
            priorities[i] = task.priority();
            executeTimes[i] = task.executeTime();
            parameters[i] = task.parameters();
            bizKeys[i] = newTasks.get(i).bizKey();
            traceContexts[i] = newTasks.get(i).traceContext();
        }
        this.jdbc.update((connection) -> {
            // reads no table, so no plan of it can go stale: the server may keep it, which halves the cost of a
            // single add (parsing and planning this statement costs more than running it)
            PreparedStatement statement = connection
                .prepareStatement(this.tables.sql(this.traced ? INSERT_ALL_TRACED : INSERT_ALL));
            statement.setArray(1, connection.createArrayOf("bigint", ids));
            statement.setArray(2, connection.createArrayOf("integer", types));
            statement.setArray(3, connection.createArrayOf("integer", priorities));
            statement.setArray(4, connection.createArrayOf("bigint", executeTimes));
            statement.setArray(5, connection.createArrayOf("bytea", parameters));
            statement.setArray(6, connection.createArrayOf("varchar", bizKeys));
            int next = 7;
            if (this.traced) {
                statement.setArray(next++, connection.createArrayOf("varchar", traceContexts));
            }
            statement.setInt(next, TaskStatus.SCHEDULED.code());
            return statement;
        });
    }

    /**
     * One page of the reload; a row comparison reads the (execute_time, task_id) index in order. On a table never
     * analyzed, with many tasks due, the planner guesses a few hundred matching rows and would rather read the whole
     * table and sort it, for every page; sorting is ruled out for this statement alone, in a transaction of its own
     * so that the setting ends with it.
     */
    @Override
    public List<StoredTask> findDue(long horizon, long afterExecuteTime, long afterTaskId, int limit) {
        return this.ownTransaction.execute((status) -> {
            this.jdbc.execute("SET LOCAL enable_sort = off");
            return this.jdbc.query((connection) -> {
                PreparedStatement statement = prepare(connection, this.tables.sql(FIND_DUE));
                statement.setLong(1, horizon);
                statement.setLong(2, afterExecuteTime);
                statement.setLong(3, afterTaskId);
                statement.setInt(4, limit);
                return statement;
            }, DatabaseStatements::storedTask);
        });
    }

    @Override
    public Long findCommittedIdByBizKey(String bizKey) {
        // READ COMMITTED, PostgreSQL's default: each statement sees what was committed before it
        List<Long> ids = this.jdbc.queryForList("SELECT task_id FROM " + this.tables.tasks() + " WHERE biz_key = ?",
                Long.class, bizKey);
        return ids.isEmpty() ? null : ids.get(0);
    }

    @Override
    public long currentTimeMillis() {
        Long millis = this.jdbc.queryForObject("SELECT " + CLOCK, Long.class);
        if (millis == null) {
            throw new IllegalStateException("The database returned no time for: SELECT " + CLOCK);
        }
        return millis;
    }

    @Override
    public String clockExpression() {
        return CLOCK;
    }

    /**
     * One batch of the purge. On a table never analyzed the planner guesses a hundred matching rows and would rather
     * gather every old row and sort them, for every batch (half a second each on a million rows, against a few
     * milliseconds by the index in order); sorting is ruled out, as for {@link #findDue}.
     */
    @Override
    public int deleteFinished(int status, long finishedBefore, boolean unstamped, int limit) {
        Integer deleted = this.ownTransaction.execute((tx) -> {
            this.jdbc.execute("SET LOCAL enable_sort = off");
            return this.jdbc.update((connection) -> {
                PreparedStatement statement = prepare(connection,
                        this.tables.sql(unstamped ? DELETE_UNSTAMPED : DELETE_FINISHED));
                statement.setInt(1, status);
                statement.setLong(2, finishedBefore);
                statement.setInt(3, limit);
                return statement;
            });
        });
        return (deleted != null) ? deleted : 0;
    }

    private static PreparedStatement prepare(Connection connection, String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        FreshPlans.apply(statement);
        return statement;
    }

    private static Array bigints(Connection connection, Collection<Long> ids) throws SQLException {
        return connection.createArrayOf("bigint", ids.toArray(new Long[0]));
    }

}
