package io.github.delaytask.store.mybatis;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.toolkit.Wrappers;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.BatchPreparedStatementSetter;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link TaskStore} on MyBatis-Plus and JDBC. Public for wiring.
 * <p>
 * Every change is version-checked. Releases, reschedules and requeues go through the {@code @Version} optimistic
 * lock of MyBatis-Plus; deletes state the version themselves, since MyBatis-Plus checks it on updates only. The hot
 * paths (adds, claims, acknowledgements) are plain JDBC with the same checks: batches in one transaction, or one
 * statement each on PostgreSQL ({@link PostgreSqlStatements}). Every change of two rows runs in one transaction,
 * joining the caller's; reads that may follow a JDBC write in one transaction are JDBC too, as the session cache of
 * MyBatis would not see that write.
 */
public class MybatisTaskStore implements TaskStore {

    private static final String CLAIM = "UPDATE taskinfo SET version = version + 1, lease_until = ? "
            + "WHERE task_id = ? AND version = ?";

    private static final String INSERT_TASK = "INSERT INTO taskinfo (task_id, task_type, priority, execute_time, "
            + "parameters, version, attempts, biz_key) VALUES (?, ?, ?, ?, ?, 1, 0, ?)";

    private static final String INSERT_LOG = "INSERT INTO taskinfo_logs (task_id, task_type, priority, execute_time, "
            + "parameters, version, status, attempts, biz_key) VALUES (?, ?, ?, ?, ?, 1, ?, 0, ?)";

    private static final String LIVE_COLUMNS = "task_id, task_type, priority, execute_time, parameters, version, "
            + "attempts, lease_until";

    // PostgreSQL reads a row comparison in index order; MySQL and MariaDB range-scan this OR form instead
    private static final String FIND_DUE = "SELECT task_id, task_type, priority, execute_time, NULL, version, "
            + "attempts, lease_until FROM taskinfo WHERE execute_time <= ? AND (execute_time > ? "
            + "OR (execute_time = ? AND task_id > ?)) ORDER BY execute_time, task_id LIMIT ?";

    private static final String DELETE_CLAIMED = "DELETE FROM taskinfo WHERE task_id = ? AND version = ?";

    private static final String LOG_EXECUTED = "UPDATE taskinfo_logs SET status = ?, attempts = ?, last_error = NULL, "
            + "version = version + 1 WHERE task_id = ?";

    /** Most new tasks one statement stores; a larger batch takes several, in one transaction. */
    static final int INSERT_CHUNK = 1000;

    /** Cancel and reschedule retry a few times when a concurrent change (not a claim) bumped the version. */
    private static final int CANCEL_ATTEMPTS = 3;

    private final TaskInfoMapper tasks;

    private final TaskInfoLogMapper logs;

    private final TransactionTemplate transactions;

    private final TransactionTemplate nestedTransactions;

    private final DatabaseClock clock;

    private final JdbcTemplate jdbc;

    private final IdentifierGenerator ids;

    /** Created only on PostgreSQL, whose driver is optional. */
    private volatile PostgreSqlStatements postgreSql;

    private volatile Dialect dialect;

    public MybatisTaskStore(TaskInfoMapper tasks, TaskInfoLogMapper logs, TransactionTemplate transactions,
            JdbcTemplate jdbc, IdentifierGenerator ids) {
        this.tasks = tasks;
        this.logs = logs;
        this.transactions = transactions;
        this.nestedTransactions = new TransactionTemplate(transactions.getTransactionManager());
        this.nestedTransactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        this.clock = new DatabaseClock(jdbc, this::dialect);
        this.jdbc = jdbc;
        this.ids = ids;
    }

    private Dialect dialect() {
        Dialect resolved = this.dialect;
        if (resolved == null) {
            resolved = Dialect.of(this.jdbc.execute((ConnectionCallback<String>) (connection) -> connection
                .getMetaData()
                .getDatabaseProductName()));
            if (resolved == Dialect.POSTGRESQL) {
                this.postgreSql = new PostgreSqlStatements(this.jdbc, this.transactions.getTransactionManager());
            }
            this.dialect = resolved;
        }
        return resolved;
    }

    private boolean postgreSql() {
        return dialect() == Dialect.POSTGRESQL;
    }

    @Override
    public Insertion insert(NewTask task) {
        if (task.bizKey() == null) {
            return insertAll(List.of(task)).get(0);
        }
        Long existing = findLiveIdByBizKey(task.bizKey());
        if (existing != null) {
            return new Insertion(existing, null);
        }
        try {
            // a savepoint, so that losing the race for the key leaves the caller's transaction usable
            return created(this.nestedTransactions.execute((status) -> insertRows(task)));
        }
        catch (DuplicateKeyException ex) {
            existing = findLiveIdByBizKey(task.bizKey());
            if (existing != null) {
                return new Insertion(existing, null);
            }
            throw ex;
        }
    }

    private static Insertion created(StoredTask task) {
        return new Insertion(task.taskId(), task);
    }

    @Override
    public List<Insertion> insertAll(List<NewTask> tasks) {
        if (postgreSql() && tasks.size() <= INSERT_CHUNK && tasks.stream().allMatch((task) -> task.bizKey() == null)) {
            // one statement: it commits on its own, or joins the caller's transaction
            return insertPlain(tasks);
        }
        List<Insertion> insertions = this.transactions.execute((status) -> {
            List<NewTask> plain = new ArrayList<>(tasks.size());
            for (NewTask task : tasks) {
                if (task.bizKey() == null) {
                    plain.add(task);
                }
            }
            List<Insertion> plainInsertions = insertPlain(plain);
            Insertion[] result = new Insertion[tasks.size()];
            int next = 0;
            for (int i = 0; i < tasks.size(); i++) {
                NewTask task = tasks.get(i);
                result[i] = (task.bizKey() != null) ? insert(task) : plainInsertions.get(next++);
            }
            return List.of(result);
        });
        return (insertions != null) ? insertions : List.of();
    }

    /** Tasks without a business key, as insertions. */
    private List<Insertion> insertPlain(List<NewTask> tasks) {
        return insertRows(tasks).stream().map(MybatisTaskStore::created).toList();
    }

    private StoredTask insertRows(NewTask task) {
        return insertRows(List.of(task)).get(0);
    }

    /**
     * Both rows of each task, under its own id or a new one: a JDBC batch per table or, on PostgreSQL, one
     * statement for all.
     */
    private List<StoredTask> insertRows(List<NewTask> tasks) {
        if (tasks.size() > INSERT_CHUNK) {
            // a statement of a million rows would hold the database (and the driver's memory) for long
            List<StoredTask> rows = new ArrayList<>(tasks.size());
            for (int from = 0; from < tasks.size(); from += INSERT_CHUNK) {
                rows.addAll(insertRows(tasks.subList(from, Math.min(tasks.size(), from + INSERT_CHUNK))));
            }
            return rows;
        }
        if (tasks.isEmpty()) {
            return List.of();
        }
        List<StoredTask> rows = new ArrayList<>(tasks.size());
        for (NewTask task : tasks) {
            rows.add(new StoredTask(idOf(task), task.taskType(), task.priority(), task.executeTime(),
                    task.parameters(), 1, 0, null));
        }
        if (postgreSql()) {
            this.postgreSql.insertAll(rows, tasks);
            return rows;
        }
        this.jdbc.batchUpdate(INSERT_TASK, new RowsSetter(rows, tasks, false));
        this.jdbc.batchUpdate(INSERT_LOG, new RowsSetter(rows, tasks, true));
        return rows;
    }

    @Override
    public boolean inCallerTransaction() {
        // a transaction begun without synchronization still binds its connection to the data source
        return TaskStore.super.inCallerTransaction()
                || TransactionSynchronizationManager.hasResource(this.jdbc.getDataSource());
    }

    @Override
    public Long findLiveIdByBizKey(String bizKey) {
        // JDBC rather than MyBatis, whose session cache would not see the JDBC inserts of the same transaction
        List<Long> ids = this.jdbc.queryForList("SELECT task_id FROM taskinfo WHERE biz_key = ?", Long.class, bizKey);
        return ids.isEmpty() ? null : ids.get(0);
    }

    @Override
    public TaskDetails findDetails(long taskId) {
        TaskInfoLog log = this.logs.selectById(taskId);
        return (log != null) ? toDetails(log) : null;
    }

    @Override
    public List<TaskDetails> findDead(int offset, int limit) {
        List<TaskInfoLog> rows = this.logs.selectList(Wrappers.<TaskInfoLog>query()
            .eq("status", TaskStatus.DEAD.code())
            .orderByAsc("task_id")
            .last("LIMIT " + limit + " OFFSET " + offset));
        return rows.stream().map(MybatisTaskStore::toDetails).toList();
    }

    @Override
    public StoredTask requeue(long taskId, long executeTime) {
        return this.transactions.execute((tx) -> {
            TaskInfoLog log = this.logs.selectById(taskId);
            if (log == null || log.getStatus() != TaskStatus.DEAD.code()) {
                return null;
            }
            TaskInfoLog change = new TaskInfoLog();
            change.setVersion(log.getVersion());
            change.setStatus(TaskStatus.SCHEDULED.code());
            change.setAttempts(0);
            change.setExecuteTime(executeTime);
            if (this.logs.update(change, Wrappers.<TaskInfoLog>update().eq("task_id", taskId)) == 0) {
                return null;
            }
            TaskInfo row = new TaskInfo();
            row.setTaskId(taskId);
            row.setTaskType(log.getTaskType());
            row.setPriority(log.getPriority());
            row.setExecuteTime(executeTime);
            row.setParameters(log.getParameters());
            row.setBizKey(log.getBizKey());
            // above every version the task had before, so that no consumer of an earlier run can finish this one
            row.setVersion(log.getVersion() + 1);
            row.setAttempts(0);
            this.tasks.insert(row);
            return toStoredTask(row);
        });
    }

    @Override
    public StoredTask reschedule(long taskId, long executeTime) {
        for (int attempt = 0; attempt < CANCEL_ATTEMPTS; attempt++) {
            StoredTask row = findLive(taskId);
            if (row == null || row.leaseUntil() != null) {
                return null;
            }
            StoredTask moved = this.transactions.execute((tx) -> {
                TaskInfo change = new TaskInfo();
                change.setVersion(row.version());
                change.setExecuteTime(executeTime);
                int updated = this.tasks.update(change,
                        Wrappers.<TaskInfo>update().eq("task_id", taskId).isNull("lease_until"));
                if (updated == 0) {
                    return null;
                }
                this.logs.update(null, Wrappers.<TaskInfoLog>update()
                    .set("execute_time", executeTime)
                    .setSql("version = version + 1")
                    .eq("task_id", taskId));
                return new StoredTask(taskId, row.taskType(), row.priority(), executeTime, row.parameters(),
                        row.version() + 1, row.attempts(), null);
            });
            if (moved != null) {
                return moved;
            }
        }
        return null;
    }

    @Override
    public List<StoredTask> findLive(Collection<Long> taskIds) {
        if (taskIds.isEmpty()) {
            return List.of();
        }
        StringJoiner in = new StringJoiner(", ", "SELECT " + LIVE_COLUMNS + " FROM taskinfo WHERE task_id IN (", ")");
        taskIds.forEach((id) -> in.add("?"));
        return this.jdbc.query(in.toString(), MybatisTaskStore::storedTask, taskIds.toArray());
    }

    private StoredTask findLive(long taskId) {
        List<StoredTask> found = findLive(List.of(taskId));
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public List<StoredTask> claimDue(Collection<Long> taskIds, long now, long leaseUntil) {
        if (taskIds.isEmpty()) {
            return List.of();
        }
        if (postgreSql()) {
            return this.postgreSql.claimDue(taskIds, now, leaseUntil);
        }
        List<StoredTask> candidates = new ArrayList<>(taskIds.size());
        for (StoredTask task : findLive(taskIds)) {
            if (!task.leasedAt(now) && task.executeTime() <= now) {
                candidates.add(task);
            }
        }
        return candidates.isEmpty() ? List.of() : claimAll(candidates, leaseUntil);
    }

    /** Each task only if nobody changed it since it was read: one JDBC batch in one transaction. */
    private List<StoredTask> claimAll(List<StoredTask> tasks, long leaseUntil) {
        int[][] counts = this.transactions.execute((tx) -> this.jdbc.batchUpdate(CLAIM, tasks, tasks.size(),
                (statement, task) -> {
                    statement.setLong(1, leaseUntil);
                    statement.setLong(2, task.taskId());
                    statement.setInt(3, task.version());
                }));
        List<StoredTask> won = new ArrayList<>(tasks.size());
        int i = 0;
        for (int[] batch : counts) {
            for (int count : batch) {
                StoredTask task = tasks.get(i++);
                if (count == 1) {
                    won.add(task.claimed(leaseUntil));
                }
                else if (count != 0) {
                    throw new IllegalStateException("The JDBC driver did not report the rows a batched update "
                            + "changed (" + count + "); turn off rewriting of batched statements");
                }
            }
        }
        return won;
    }

    @Override
    public boolean finish(StoredTask claimed, TaskStatus status, String error) {
        Boolean finished = this.transactions.execute((tx) -> {
            int deleted = this.tasks.delete(Wrappers.<TaskInfo>query()
                .eq("task_id", claimed.taskId())
                .eq("version", claimed.version()));
            if (deleted == 0) {
                return false;
            }
            updateLog(claimed.taskId(), status, claimed.attempt(), claimed.version(), error);
            return true;
        });
        return Boolean.TRUE.equals(finished);
    }

    @Override
    public List<StoredTask> finishAllExecuted(List<StoredTask> claimed) {
        if (claimed.isEmpty()) {
            return List.of();
        }
        List<StoredTask> distinct = latestClaims(claimed);
        if (postgreSql()) {
            Set<Long> done = new HashSet<>(this.postgreSql.finishExecuted(distinct));
            return distinct.stream().filter((task) -> done.contains(task.taskId())).toList();
        }
        List<StoredTask> finished = this.transactions.execute((tx) -> {
            int[][] counts = this.jdbc.batchUpdate(DELETE_CLAIMED, distinct, distinct.size(), (statement, task) -> {
                statement.setLong(1, task.taskId());
                statement.setInt(2, task.version());
            });
            List<StoredTask> deleted = new ArrayList<>(claimed.size());
            int i = 0;
            for (int[] batch : counts) {
                for (int count : batch) {
                    StoredTask task = distinct.get(i++);
                    if (count == 1) {
                        deleted.add(task);
                    }
                    else if (count != 0) {
                        throw new IllegalStateException("The JDBC driver did not report the rows a batched delete "
                                + "changed (" + count + "); turn off rewriting of batched statements");
                    }
                }
            }
            this.jdbc.batchUpdate(LOG_EXECUTED, deleted, deleted.size(), (statement, task) -> {
                statement.setInt(1, TaskStatus.EXECUTED.code());
                statement.setInt(2, task.attempt());
                statement.setLong(3, task.taskId());
            });
            return deleted;
        });
        return (finished != null) ? finished : List.of();
    }

    /**
     * One claim per task: a task can be in a batch twice when its lease ran out while its handler ran and this
     * instance claimed it again. Only the later claim can still finish it.
     */
    private static List<StoredTask> latestClaims(List<StoredTask> claimed) {
        Map<Long, StoredTask> latest = new LinkedHashMap<>();
        for (StoredTask task : claimed) {
            latest.merge(task.taskId(), task, (a, b) -> (a.version() >= b.version()) ? a : b);
        }
        return (latest.size() == claimed.size()) ? claimed : new ArrayList<>(latest.values());
    }

    @Override
    public boolean unclaim(StoredTask claimed) {
        TaskInfo change = new TaskInfo();
        change.setVersion(claimed.version());
        return this.tasks.update(change,
                Wrappers.<TaskInfo>update().eq("task_id", claimed.taskId()).set("lease_until", null)) == 1;
    }

    @Override
    public boolean release(StoredTask claimed, long executeTime, String error) {
        Boolean released = this.transactions.execute((tx) -> {
            TaskInfo change = new TaskInfo();
            change.setVersion(claimed.version());
            change.setExecuteTime(executeTime);
            change.setAttempts(claimed.attempt());
            int updated = this.tasks.update(change,
                    Wrappers.<TaskInfo>update().eq("task_id", claimed.taskId()).set("lease_until", null));
            if (updated == 0) {
                return false;
            }
            this.logs.update(null, Wrappers.<TaskInfoLog>update()
                .set("attempts", claimed.attempt())
                .set("last_error", error)
                .set("execute_time", executeTime)
                .setSql("version = version + 1")
                .eq("task_id", claimed.taskId()));
            return true;
        });
        return Boolean.TRUE.equals(released);
    }

    @Override
    public StoredTask cancel(long taskId) {
        for (int attempt = 0; attempt < CANCEL_ATTEMPTS; attempt++) {
            StoredTask row = findLive(taskId);
            if (row == null || row.leaseUntil() != null) {
                return null;
            }
            Boolean cancelled = this.transactions.execute((tx) -> {
                int deleted = this.tasks.delete(Wrappers.<TaskInfo>query()
                    .eq("task_id", taskId)
                    .eq("version", row.version())
                    .isNull("lease_until"));
                if (deleted == 0) {
                    return false;
                }
                updateLog(taskId, TaskStatus.CANCELLED, row.attempts(), row.version(), null);
                return true;
            });
            if (Boolean.TRUE.equals(cancelled)) {
                return row;
            }
        }
        return null;
    }

    @Override
    public List<StoredTask> findDue(long horizon, long afterExecuteTime, long afterTaskId, int limit) {
        if (postgreSql()) {
            return this.postgreSql.findDue(horizon, afterExecuteTime, afterTaskId, limit);
        }
        return this.jdbc.query(FIND_DUE, MybatisTaskStore::storedTask, horizon, afterExecuteTime, afterExecuteTime,
                afterTaskId, limit);
    }

    @Override
    public long currentTimeMillis() {
        return this.clock.currentTimeMillis();
    }

    /**
     * The final status of a task that leaves {@code taskinfo}. The log's version ends above every version the task's
     * row had, so that a requeued task starts above them too: an old consumer's acknowledgement can never match a
     * claim of the requeued task.
     */
    private void updateLog(long taskId, TaskStatus status, int attempts, int taskVersion, String error) {
        this.logs.update(null, Wrappers.<TaskInfoLog>update()
            .set("status", status.code())
            .set("attempts", attempts)
            .set("last_error", error)
            .setSql("version = GREATEST(version, " + taskVersion + ") + 1")
            .eq("task_id", taskId));
    }

    private static TaskDetails toDetails(TaskInfoLog log) {
        return new TaskDetails(log.getTaskId(), log.getTaskType(), log.getPriority(),
                Instant.ofEpochMilli(log.getExecuteTime()), TaskStatus.fromCode(log.getStatus()),
                (log.getAttempts() != null) ? log.getAttempts() : 0, log.getLastError(), log.getBizKey(),
                log.getParameters());
    }

    private long idOf(NewTask task) {
        return (task.taskId() != null) ? task.taskId() : this.ids.nextId(null).longValue();
    }

    /** Binds the rows of new tasks to {@link #INSERT_TASK} or, with the status, to {@link #INSERT_LOG}. */
    private record RowsSetter(List<StoredTask> rows, List<NewTask> tasks, boolean log)
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
            statement.setString(next, this.tasks.get(i).bizKey());
        }

        @Override
        public int getBatchSize() {
            return this.rows.size();
        }

    }

    /** Maps the columns of {@link #LIVE_COLUMNS}, in that order. */
    static StoredTask storedTask(ResultSet row, int number) throws SQLException {
        long leaseUntil = row.getLong(8);
        Long lease = row.wasNull() ? null : leaseUntil;
        return new StoredTask(row.getLong(1), row.getInt(2), row.getInt(3), row.getLong(4), row.getBytes(5),
                row.getInt(6), row.getInt(7), lease);
    }

    private static StoredTask toStoredTask(TaskInfo row) {
        return new StoredTask(row.getTaskId(), row.getTaskType(), row.getPriority(), row.getExecuteTime(),
                row.getParameters(), row.getVersion(), (row.getAttempts() != null) ? row.getAttempts() : 0,
                row.getLeaseUntil());
    }

}
