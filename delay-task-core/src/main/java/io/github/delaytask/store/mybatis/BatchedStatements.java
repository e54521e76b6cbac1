package io.github.delaytask.store.mybatis;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.StringJoiner;

import io.github.delaytask.TaskStatus;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;

import org.springframework.jdbc.core.BatchPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The statements of databases without arrays: JDBC batches in one transaction, which joins the caller's. A claim
 * locks the rows it may take, skipping those another transaction holds, and then changes them by version.
 */
abstract class BatchedStatements implements DatabaseStatements {

    private static final String INSERT_TASK = "INSERT INTO taskinfo (task_id, task_type, priority, execute_time, "
            + "parameters, version, attempts, biz_key) VALUES (?, ?, ?, ?, ?, 1, 0, ?)";

    private static final String INSERT_TRACED_TASK = "INSERT INTO taskinfo (task_id, task_type, priority, "
            + "execute_time, parameters, version, attempts, biz_key, trace_context) VALUES (?, ?, ?, ?, ?, 1, 0, ?, ?)";

    private static final String INSERT_LOG = "INSERT INTO taskinfo_logs (task_id, task_type, priority, execute_time, "
            + "parameters, version, status, attempts, biz_key) VALUES (?, ?, ?, ?, ?, 1, ?, 0, ?)";

    private static final String CLAIM = "UPDATE taskinfo SET version = version + 1, lease_until = ? "
            + "WHERE task_id = ? AND version = ?";

    private static final String DELETE_CLAIMED = "DELETE FROM taskinfo WHERE task_id = ? AND version = ?";

    private static final String LOG_EXECUTED = "UPDATE taskinfo_logs SET status = ?, attempts = ?, last_error = NULL, "
            + "version = version + 1, finished_at = (%s) WHERE task_id = ?";

    // MySQL and MariaDB range-scan this OR form; a row comparison they would not
    private static final String FIND_DUE = "SELECT task_id, task_type, priority, execute_time, NULL, version, "
            + "attempts, lease_until, NULL FROM taskinfo WHERE execute_time <= ? AND (execute_time > ? "
            + "OR (execute_time = ? AND task_id > ?)) ORDER BY execute_time, task_id LIMIT ?";

    protected final JdbcTemplate jdbc;

    private final TransactionTemplate transactions;

    private final String clock;

    private final String logExecuted;

    private final boolean traced;

    final TableNames tables;

    /**
     * @param clock the expression of {@link #clockExpression()}
     * @param traced whether adds write and claims read the carried context (a trace's, the application's)
     */
    BatchedStatements(JdbcTemplate jdbc, PlatformTransactionManager transactionManager, String clock,
            boolean traced, TableNames tables) {
        this.jdbc = jdbc;
        this.tables = tables;
        this.traced = traced;
        this.transactions = new TransactionTemplate(transactionManager);
        this.clock = clock;
        this.logExecuted = this.tables.sql(LOG_EXECUTED).formatted(clock);
    }

    @Override
    public boolean insertsInOneStatement() {
        return false;
    }

    @Override
    public void insertAll(List<StoredTask> rows, List<NewTask> tasks) {
        this.jdbc.batchUpdate(this.tables.sql(this.traced ? INSERT_TRACED_TASK : INSERT_TASK),
                new RowsSetter(rows, tasks, false, this.traced));
        this.jdbc.batchUpdate(this.tables.sql(INSERT_LOG), new RowsSetter(rows, tasks, true, false));
    }

    @Override
    public List<StoredTask> claimDue(Collection<Long> taskIds, long now, long leaseUntil) {
        StringJoiner select = new StringJoiner(", ", "SELECT " + (this.traced ? TRACED_COLUMNS : LIVE_COLUMNS)
                + " FROM " + this.tables.tasks() + " WHERE task_id IN (", ") FOR UPDATE SKIP LOCKED");
        RowMapper<StoredTask> mapper = this.traced ? DatabaseStatements::tracedTask : DatabaseStatements::storedTask;
        taskIds.forEach((id) -> select.add("?"));
        List<StoredTask> won = this.transactions.execute((tx) -> {
            List<StoredTask> candidates = new ArrayList<>(taskIds.size());
            for (StoredTask task : this.jdbc.query(select.toString(), mapper, taskIds.toArray())) {
                if (!task.leasedAt(now) && task.executeTime() <= now) {
                    candidates.add(task);
                }
            }
            return candidates.isEmpty() ? List.<StoredTask>of() : claimAll(candidates, leaseUntil);
        });
        return (won != null) ? won : List.of();
    }

    /** Each task only if nobody changed it since it was read: one JDBC batch. */
    private List<StoredTask> claimAll(List<StoredTask> tasks, long leaseUntil) {
        int[][] counts = this.jdbc.batchUpdate(this.tables.sql(CLAIM), tasks, tasks.size(), (statement, task) -> {
            statement.setLong(1, leaseUntil);
            statement.setLong(2, task.taskId());
            statement.setInt(3, task.version());
        });
        List<StoredTask> won = new ArrayList<>(tasks.size());
        forEachCount(counts, tasks, (task) -> won.add(task.claimed(leaseUntil)));
        return won;
    }

    @Override
    public FinishedIds finishExecuted(List<StoredTask> claimed) {
        List<Long> finished = this.transactions.execute((tx) -> {
            int[][] counts = this.jdbc.batchUpdate(this.tables.sql(DELETE_CLAIMED), claimed, claimed.size(),
                    (statement, task) -> {
                statement.setLong(1, task.taskId());
                statement.setInt(2, task.version());
            });
            List<StoredTask> deleted = new ArrayList<>(claimed.size());
            forEachCount(counts, claimed, deleted::add);
            this.jdbc.batchUpdate(this.logExecuted, deleted, deleted.size(), (statement, task) -> {
                statement.setInt(1, TaskStatus.EXECUTED.code());
                statement.setInt(2, task.attempt());
                statement.setLong(3, task.taskId());
            });
            return deleted.stream().map(StoredTask::taskId).toList();
        });
        return FinishedIds.all((finished != null) ? finished : List.of());
    }

    @Override
    public int renewLeases(Collection<StoredTask> running, long leaseUntil) {
        return DatabaseStatements.renewLeasesByIdList(this.jdbc, this.tables, running, leaseUntil);
    }

    @Override
    public boolean cancelDead(long taskId) {
        return DatabaseStatements.cancelDead(this.jdbc, this.tables.logs(), this.clock, taskId);
    }

    @Override
    public List<StoredTask> findDue(long horizon, long afterExecuteTime, long afterTaskId, int limit) {
        return this.jdbc.query(this.tables.sql(FIND_DUE), DatabaseStatements::storedTask, horizon, afterExecuteTime,
                afterExecuteTime,
                afterTaskId, limit);
    }

    @Override
    public long currentTimeMillis() {
        String query = "SELECT " + this.clock;
        Long millis = this.jdbc.queryForObject(query, Long.class);
        if (millis == null) {
            throw new IllegalStateException("The database returned no time for: " + query);
        }
        return millis;
    }

    @Override
    public String clockExpression() {
        return this.clock;
    }

    /** The tasks of a batch whose statement changed one row; a driver that reports no counts is refused. */
    private static void forEachCount(int[][] counts, List<StoredTask> tasks,
            java.util.function.Consumer<StoredTask> changed) {
        int i = 0;
        for (int[] batch : counts) {
            for (int count : batch) {
                StoredTask task = tasks.get(i++);
                if (count == 1) {
                    changed.accept(task);
                }
                else if (count != 0) {
                    throw new IllegalStateException("The JDBC driver did not report the rows a batched statement "
                            + "changed (" + count + "); turn off rewriting of batched statements");
                }
            }
        }
    }

    /**
     * Binds the rows of new tasks to {@link #INSERT_TASK}, with the trace context to {@link #INSERT_TRACED_TASK}, or,
     * with the status, to {@link #INSERT_LOG}.
     */
    private record RowsSetter(List<StoredTask> rows, List<NewTask> tasks, boolean log, boolean traced)
            implements BatchPreparedStatementSetter {

        @Override
        public void setValues(PreparedStatement statement, int i) throws SQLException {
            StoredTask row = this.rows.get(i);
            statement.setLong(1, row.taskId());
            statement.setInt(2, row.taskType());
            statement.setInt(3, row.priority());
            statement.setLong(4, row.executeTime());
            statement.setBytes(5, row.parameters());
            int next = 6;
            if (this.log) {
                statement.setInt(next++, TaskStatus.SCHEDULED.code());
            }
            statement.setString(next++, this.tasks.get(i).bizKey());
            if (this.traced) {
                statement.setString(next, this.tasks.get(i).traceContext());
            }
        }

        @Override
        public int getBatchSize() {
            return this.rows.size();
        }

    }

}
