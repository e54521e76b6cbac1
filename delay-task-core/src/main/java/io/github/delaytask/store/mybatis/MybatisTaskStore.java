package io.github.delaytask.store.mybatis;

import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.BooleanSupplier;

import com.baomidou.mybatisplus.core.conditions.query.QueryWrapper;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.toolkit.Wrappers;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.store.Finishes;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;

/**
 * {@link TaskStore} on MyBatis-Plus and JDBC. Public for wiring.
 * <p>
 * Every change is version-checked. Releases, reschedules and requeues go through the {@code @Version} optimistic
 * lock of MyBatis-Plus; deletes state the version themselves, since MyBatis-Plus checks it on updates only. The hot
 * paths (adds, claims, acknowledgements) are plain JDBC with the same checks, in the statements of the database at
 * hand ({@link DatabaseStatements}). Every change of two rows runs in one transaction,
 * joining the caller's; reads that may follow a JDBC write in one transaction are JDBC too, as the session cache of
 * MyBatis would not see that write.
 */
public class MybatisTaskStore implements TaskStore {

    private static final Log logger = LogFactory.getLog(MybatisTaskStore.class);

    private static final String MISSING_STORE_ID = "The delay-task schema has no store id (table taskinfo_store, "
            + "which schemas of earlier versions lack): create it with the last statements of the schema script for your database (see the "
            + "README, 'Upgrading'), let the starter run the script (delay-task.jdbc.initialize-schema=always), or "
            + "set delay-task.redis.key-prefix, which the Redis keys then start with instead";

    private static final String MISSING_FINISHED_AT = "The delay-task schema has no column taskinfo_logs.finished_at "
            + "(schemas of earlier versions lack it), which records when a task finished: add it and its index with "
            + "the statements of the README ('Upgrading a schema created by an earlier version'), or let the starter "
            + "run the schema script (delay-task.jdbc.initialize-schema=always; PostgreSQL and H2 only)";

    private static final String MISSING_SCHEMA = "The delay-task schema lacks ";

    private static final String MISSING_SCHEMA_FIX = ". The starter's scripts create all of it (sql/schema-<platform>"
            + ".sql, in its jar under META-INF/delay-task/sql/; delay-task.jdbc.initialize-schema=always runs them), "
            + "its versioned Flyway migrations too (META-INF/delay-task/sql/migration/<platform>), and the README "
            + "('Upgrading a schema created by an earlier version') gives the statements for a schema of an earlier "
            + "version. delay-task.jdbc.validate-schema=false starts without this check";

    private static final String MISSING_TRACE_CONTEXT = "The delay-task schema has no column taskinfo.trace_context, "
            + "which stores the context each add carries to its handler while delay-task.observation.enabled is true "
            + "or the application carries context (delay-task.context.mdc-keys, TaskContextPropagator beans); "
            + "schemas of earlier versions lack it: add it with the statement of the README ('Upgrading a schema "
            + "created by an earlier version'), let the starter run the schema script "
            + "(delay-task.jdbc.initialize-schema=always; PostgreSQL and H2 only), or carry no context";

    /** Most new tasks one statement stores; a larger batch takes several, in one transaction. */
    static final int INSERT_CHUNK = 1000;

    /** Cancel and reschedule retry a few times when a concurrent change (not a claim) bumped the version. */
    private static final int CANCEL_ATTEMPTS = 3;

    private final TaskInfoMapper tasks;

    private final TableNames tables;

    private final TaskInfoLogMapper logs;

    private final TransactionTemplate transactions;

    private final TransactionTemplate nestedTransactions;

    /** Reads outside a caller's transaction, of what was last committed. */
    private final TransactionTemplate committedReads;

    /** For the store's own statements: PostgreSQL plans each of them at each execution ({@link FreshPlans}). */
    private final JdbcTemplate jdbc;

    /** The caller's template, for the database's statements, which choose for each statement how it is planned. */
    private final JdbcTemplate statementsJdbc;

    private final IdentifierGenerator ids;

    private final QueueClaims queueClaims;

    private final boolean traced;

    private final BooleanSupplier validateSchema;

    private final boolean storeTable;

    /** Chosen on first use, not in the constructor, which must not reach the database. */
    private volatile DatabaseStatements statements;

    /**
     * Whether taskinfo_logs keeps a dead task's carried context for its requeue; found out on first use, as the
     * column is optional (schemas of earlier versions lack it, and then a requeue runs without the context).
     */
    private volatile @Nullable Boolean logsKeepContext;

    public MybatisTaskStore(TaskInfoMapper tasks, TaskInfoLogMapper logs, TransactionTemplate transactions,
            JdbcTemplate jdbc, IdentifierGenerator ids) {
        this(tasks, logs, transactions, jdbc, ids, false);
    }

    /**
     * @param traced whether adds store and claims read the context of {@link NewTask#traceContext()} (a trace's, the
     * application's), in the column {@code taskinfo.trace_context}, which a schema needs only then
     */
    public MybatisTaskStore(TaskInfoMapper tasks, TaskInfoLogMapper logs, TransactionTemplate transactions,
            JdbcTemplate jdbc, IdentifierGenerator ids, boolean traced) {
        this(tasks, logs, transactions, jdbc, ids, traced, () -> false, false);
    }

    /**
     * @param traced whether adds store and claims read the context of {@link NewTask#traceContext()} (a trace's, the
     * application's), in the column {@code taskinfo.trace_context}, which a schema needs only then
     * @param validateSchema whether {@link #checkSchema()} names every table, column and index the schema lacks;
     * asked then, not before
     * @param storeTable whether the schema needs {@code taskinfo_store}, whose id the Redis keys start with
     */
    public MybatisTaskStore(TaskInfoMapper tasks, TaskInfoLogMapper logs, TransactionTemplate transactions,
            JdbcTemplate jdbc, IdentifierGenerator ids, boolean traced, BooleanSupplier validateSchema,
            boolean storeTable) {
        this(tasks, logs, transactions, jdbc, ids, traced, validateSchema, storeTable, TableNames.NONE);
    }

    /**
     * @param traced whether adds store and claims read the context of {@link NewTask#traceContext()} (a trace's, the
     * application's), in the column {@code taskinfo.trace_context}, which a schema needs only then
     * @param validateSchema whether {@link #checkSchema()} names every table, column and index the schema lacks;
     * asked then, not before
     * @param storeTable whether the schema needs {@code taskinfo_store}, whose id the Redis keys start with
     * @param tables the names of the tables, those the mappers' configuration has too
     * ({@link MybatisSetup#sqlSessions})
     */
    public MybatisTaskStore(TaskInfoMapper tasks, TaskInfoLogMapper logs, TransactionTemplate transactions,
            JdbcTemplate jdbc, IdentifierGenerator ids, boolean traced, BooleanSupplier validateSchema,
            boolean storeTable, TableNames tables) {
        this.tables = tables;
        this.validateSchema = validateSchema;
        this.storeTable = storeTable;
        this.traced = traced;
        this.tasks = tasks;
        this.logs = logs;
        this.transactions = transactions;
        this.nestedTransactions = new TransactionTemplate(transactions.getTransactionManager());
        this.nestedTransactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        this.committedReads = new TransactionTemplate(transactions.getTransactionManager());
        this.committedReads.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.committedReads.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        this.committedReads.setReadOnly(true);
        this.jdbc = new FreshPlanJdbcTemplate(jdbc);
        this.statementsJdbc = jdbc;
        this.ids = ids;
        this.queueClaims = new QueueClaims(this.jdbc, transactions.getTransactionManager(), tables);
    }

    private DatabaseStatements statements() {
        DatabaseStatements chosen = this.statements;
        if (chosen == null) {
            chosen = DatabaseStatements.detect(this.statementsJdbc, this.transactions.getTransactionManager(),
                    this.traced, this.tables);
            this.statements = chosen;
        }
        return chosen;
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
        return insertKeyed(task);
    }

    @Override
    public Insertion insertKeyed(NewTask task) {
        try {
            // a savepoint, so that losing the race for the key leaves the caller's transaction usable
            return created(this.nestedTransactions.execute((status) -> insertRows(task)));
        }
        catch (DuplicateKeyException ex) {
            // the winner has committed by now (the insert waited for it); a plain read may not see it yet
            Long existing = statements().findCommittedIdByBizKey(task.bizKey());
            if (existing != null) {
                return new Insertion(existing, null);
            }
            throw ex;
        }
    }

    @Override
    public StoredTask findLiveByBizKey(String bizKey) {
        String sql = "SELECT " + DatabaseStatements.LIVE_COLUMNS + " FROM " + this.tables.tasks() + " WHERE biz_key = ?";
        if (!inCallerTransaction()) {
            List<StoredTask> found = this.jdbc.query(sql, DatabaseStatements::storedTask, bizKey);
            return found.isEmpty() ? null : found.get(0);
        }
        // the caller's snapshot (REPEATABLE READ) may be older than the task's last change, and a locking read would
        // hold the row until the caller commits: a transaction of its own, which reads what was last committed
        return this.committedReads.execute((status) -> {
            List<StoredTask> found = this.jdbc.query(sql, DatabaseStatements::storedTask, bizKey);
            return found.isEmpty() ? null : found.get(0);
        });
    }

    private static Insertion created(StoredTask task) {
        return new Insertion(task.taskId(), task);
    }

    @Override
    public List<Insertion> insertAll(List<NewTask> tasks) {
        if (statements().insertsInOneStatement() && tasks.size() <= INSERT_CHUNK
                && tasks.stream().allMatch((task) -> task.bizKey() == null)) {
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
     * Both rows of each task, under its own id or a new one.
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
                    task.parameters(), 1, 0, null, task.traceContext(), task.bizKey()));
        }
        statements().insertAll(rows, tasks);
        return rows;
    }

    @Override
    public boolean inCallerTransaction() {
        // a transaction holds the connection bound to the store's data source, also one begun without
        // synchronization; a connection bound there only for the length of a synchronization commits each statement
        // by itself
        if (TransactionSynchronizationManager.getResource(this.jdbc.getDataSource()) instanceof ConnectionHolder holder
                && holder.getConnectionHandle() != null) {
            return inTransaction(holder);
        }
        // none bound there: a transaction that binds no connection (JTA) may still hold the store's writes, unless
        // it is one on another data source, whose connection is bound to that one
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
            if (resource instanceof ConnectionHolder other && other.getConnectionHandle() != null
                    && inTransaction(other)) {
                return false;
            }
        }
        return true;
    }

    private static boolean inTransaction(ConnectionHolder holder) {
        try {
            return !holder.getConnection().getAutoCommit();
        }
        catch (SQLException ex) {
            throw new CannotGetJdbcConnectionException("Could not tell whether a connection is in a transaction", ex);
        }
    }

    @Override
    public Long findLiveIdByBizKey(String bizKey) {
        // JDBC rather than MyBatis, whose session cache would not see the JDBC inserts of the same transaction
        List<Long> ids = this.jdbc.queryForList("SELECT task_id FROM " + this.tables.tasks() + " WHERE biz_key = ?",
                Long.class, bizKey);
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
    public List<Long> findDeadIds(QueueId queue, long afterTaskId, int limit) {
        // the status index, read from the given id on; the queue's columns are checked on the dead rows alone
        return this.jdbc.queryForList("SELECT task_id FROM " + this.tables.logs() + " WHERE status = "
                + TaskStatus.DEAD.code()
                + " AND task_id > ? AND task_type = ? AND priority = ? ORDER BY task_id LIMIT " + limit, Long.class,
                afterTaskId, queue.taskType(), queue.priority());
    }

    @Override
    public List<TaskDetails> findDeadNewestFirst(int offset, int limit) {
        return findDeadNewestFirst(offset, limit, true);
    }

    @Override
    public List<TaskDetails> findDeadNewestFirst(int offset, int limit, boolean parameters) {
        QueryWrapper<TaskInfoLog> query = Wrappers.<TaskInfoLog>query();
        if (!parameters) {
            // a page of a thousand tasks may hold a thousand payloads of up to 16 MB
            // by the entity's property: a column format of the application's leaves it as it is
            query.select(TaskInfoLog.class, (field) -> !"parameters".equals(field.getProperty()));
        }
        // by id, not finishing time: the status index (status, task_id) serves it backwards, with no sort
        List<TaskInfoLog> rows = this.logs.selectList(query.eq("status", TaskStatus.DEAD.code())
            .orderByDesc("task_id")
            .last("LIMIT " + limit + " OFFSET " + offset));
        return rows.stream().map(MybatisTaskStore::toDetails).toList();
    }

    @Override
    public Map<QueueId, Long> countDeadByQueue() {
        Map<QueueId, Long> counts = new LinkedHashMap<>();
        // the status index finds the dead rows, which are few, and leaves the executed ones alone
        this.jdbc.query("SELECT task_type, priority, COUNT(*) FROM " + this.tables.logs() + " WHERE status = "
                + TaskStatus.DEAD.code() + " GROUP BY task_type, priority",
                (RowCallbackHandler) (row) -> counts.put(new QueueId(row.getInt(1), row.getInt(2)), row.getLong(3)));
        return counts;
    }

    @Override
    public Map<QueueId, LiveTasks> countLiveByQueue() {
        Map<QueueId, LiveTasks> counts = new LinkedHashMap<>();
        // taskinfo holds the live tasks only, so this reads no history
        this.jdbc.query("SELECT task_type, priority, COUNT(*), MIN(execute_time) FROM " + this.tables.tasks()
                + " GROUP BY task_type, priority",
                (RowCallbackHandler) (row) -> counts.put(new QueueId(row.getInt(1), row.getInt(2)),
                        new LiveTasks(row.getLong(3), row.getLong(4))));
        return counts;
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
            boolean keepsContext = logsKeepContext();
            // the context its first add carried, which its death kept: read before the log lets it go
            String carried = keepsContext ? this.jdbc.queryForObject("SELECT trace_context FROM "
                    + this.tables.logs() + " "
                    + "WHERE task_id = ?", String.class, taskId) : null;
            // the status too, not only the version: a discard of the dead task in between must win without
            // MyBatis-Plus's optimistic lock as well
            if (this.logs.update(change, Wrappers.<TaskInfoLog>update()
                .setSql("finished_at = NULL")
                .setSql(keepsContext, "trace_context = NULL")
                .eq("task_id", taskId)
                .eq("status", TaskStatus.DEAD.code())) == 0) {
                return null;
            }
            TaskInfo row = new TaskInfo();
            row.setTaskId(taskId);
            row.setTaskType(log.getTaskType());
            row.setPriority(log.getPriority());
            row.setExecuteTime(executeTime);
            row.setParameters(log.getParameters());
            row.setBizKey(log.getBizKey());
            row.setTraceContext(carried);
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
                        row.version() + 1, row.attempts(), null, row.traceContext(), row.bizKey());
            });
            if (moved != null) {
                return moved;
            }
        }
        return null;
    }

    @Override
    public StoredTask replace(StoredTask live, long executeTime, byte[] parameters, String traceContext) {
        long taskId = live.taskId();
        SqlParameterValue bytes = new SqlParameterValue(Types.VARBINARY, parameters);
        return this.transactions.execute((tx) -> {
            // no version: a replacement overwrites whatever another one wrote, in one statement that waits for the
            // other's row lock; a claim that came first leased the row, which this then leaves alone
            String where = " WHERE task_id = ? AND lease_until IS NULL";
            int updated = this.traced
                    ? this.jdbc.update("UPDATE " + this.tables.tasks() + " SET execute_time = ?, parameters = ?, "
                            + "trace_context = ?, version = version + 1" + where, executeTime, bytes, traceContext,
                            taskId)
                    : this.jdbc.update("UPDATE " + this.tables.tasks() + " SET execute_time = ?, parameters = ?, "
                            + "version = version + 1" + where, executeTime, bytes, taskId);
            if (updated == 0) {
                return null;
            }
            this.jdbc.update("UPDATE " + this.tables.logs() + " SET execute_time = ?, parameters = ?, "
                    + "version = version + 1 WHERE task_id = ?", executeTime, bytes, taskId);
            return new StoredTask(taskId, live.taskType(), live.priority(), executeTime, parameters,
                    live.version() + 1, live.attempts(), null, this.traced ? traceContext : live.traceContext(),
                    live.bizKey());
        });
    }

    @Override
    public List<StoredTask> findLive(Collection<Long> taskIds) {
        if (taskIds.isEmpty()) {
            return List.of();
        }
        StringJoiner in = new StringJoiner(", ",
                "SELECT " + DatabaseStatements.LIVE_COLUMNS + " FROM " + this.tables.tasks() + " WHERE task_id IN (",
                        ")");
        taskIds.forEach((id) -> in.add("?"));
        return this.jdbc.query(in.toString(), DatabaseStatements::storedTask, taskIds.toArray());
    }

    private StoredTask findLive(long taskId) {
        List<StoredTask> found = findLive(List.of(taskId));
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public List<StoredTask> claimDue(Collection<Long> taskIds, long now, long leaseUntil) {
        return taskIds.isEmpty() ? List.of() : statements().claimDue(taskIds, now, leaseUntil);
    }

    @Override
    public List<StoredTask> claimDueInQueues(Map<QueueId, Integer> counts, long now, long leaseUntil) {
        Map<QueueId, Integer> claimable = new LinkedHashMap<>();
        counts.forEach((queue, count) -> {
            if (count > 0) {
                claimable.put(queue, count);
            }
        });
        if (claimable.isEmpty()) {
            return List.of();
        }
        return this.queueClaims.claim(claimable, now, leaseUntil, statements());
    }

    @Override
    public Map<QueueId, Long> nextDueTimes(Collection<QueueId> queues, long after, long until) {
        return queues.isEmpty() ? Map.of() : this.queueClaims.nextDueTimes(queues, after, until);
    }

    @Override
    public int renewLeases(Collection<StoredTask> running, long leaseUntil) {
        return running.isEmpty() ? 0 : statements().renewLeases(running, leaseUntil);
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
            // claims read the context only on an instance that carries it (traced)
            updateLog(claimed.taskId(), status, claimed.attempt(), claimed.version(), error,
                    (status == TaskStatus.DEAD && claimed.traceContext() != null && logsKeepContext())
                            ? claimed.traceContext() : null);
            return true;
        });
        return Boolean.TRUE.equals(finished);
    }

    /**
     * Whether both tables have the column: a requeue then takes a dead task's context back, also on an instance that
     * carries none itself (an operator's), as the column of taskinfo is known to be there.
     */
    private boolean logsKeepContext() {
        Boolean keep = this.logsKeepContext;
        if (keep == null) {
            Set<String> logColumns = columnsOf(this.tables.logs());
            Set<String> taskColumns = columnsOf(this.tables.tasks());
            if (logColumns == null || taskColumns == null) {
                // no tables yet: asked again once there are
                return false;
            }
            keep = logColumns.contains("trace_context") && taskColumns.contains("trace_context");
            this.logsKeepContext = keep;
        }
        return keep;
    }

    @Override
    public Finishes finishAllExecuted(List<StoredTask> claimed) {
        if (claimed.isEmpty()) {
            return new Finishes(List.of(), List.of());
        }
        List<StoredTask> distinct = latestClaims(claimed);
        DatabaseStatements.FinishedIds ids = statements().finishExecuted(distinct);
        Set<Long> done = new HashSet<>(ids.finished());
        Set<Long> held = new HashSet<>(ids.held());
        return new Finishes(distinct.stream().filter((task) -> done.contains(task.taskId())).toList(),
                distinct.stream().filter((task) -> held.contains(task.taskId())).toList());
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
                updateLog(taskId, TaskStatus.CANCELLED, row.attempts(), row.version(), null, null);
                return true;
            });
            if (Boolean.TRUE.equals(cancelled)) {
                return row;
            }
        }
        return null;
    }

    @Override
    public boolean cancelDead(long taskId) {
        // a plain read first: on MySQL and MariaDB under REPEATABLE READ, an UPDATE that changes nothing keeps the
        // lock of the row it looked at until the caller commits (the outcome of a task found running would wait for
        // it), and one of an id that is not there locks the gap where new tasks' logs go
        List<Integer> status = this.jdbc.queryForList("SELECT status FROM " + this.tables.logs() + " WHERE task_id = ?",
                Integer.class, taskId);
        if (status.size() != 1 || status.get(0) != TaskStatus.DEAD.code() || !statements().cancelDead(taskId)) {
            return false;
        }
        if (logsKeepContext()) {
            // a discarded task is not requeued: its tenant or user need not stay in the history until the purge
            this.jdbc.update("UPDATE " + this.tables.logs() + " SET trace_context = NULL WHERE task_id = ?", taskId);
        }
        return true;
    }

    @Override
    public List<StoredTask> findDue(long horizon, long afterExecuteTime, long afterTaskId, int limit) {
        return statements().findDue(horizon, afterExecuteTime, afterTaskId, limit);
    }

    @Override
    public long currentTimeMillis() {
        return statements().currentTimeMillis();
    }

    @Override
    public Set<Long> findKnown(QueueId queue, Collection<Long> taskIds) {
        if (taskIds.isEmpty()) {
            return Set.of();
        }
        StringJoiner in = new StringJoiner(", ",
                "SELECT task_id FROM " + this.tables.logs()
                        + " WHERE task_type = ? AND priority = ? AND task_id IN (", ")");
        List<Object> args = new ArrayList<>(taskIds.size() + 2);
        args.add(queue.taskType());
        args.add(queue.priority());
        taskIds.forEach((id) -> {
            in.add("?");
            args.add(id);
        });
        return new HashSet<>(this.jdbc.queryForList(in.toString(), Long.class, args.toArray()));
    }

    @Override
    public int purgeFinished(TaskStatus status, long finishedBefore, int limit) {
        Assert.isTrue(status != TaskStatus.SCHEDULED, "Only finished tasks are purged");
        Assert.isTrue(limit > 0, "The limit must be positive");
        DatabaseStatements statements = statements();
        int deleted = statements.deleteFinished(status.code(), finishedBefore, false, limit);
        if (deleted < limit) {
            // rows finished before the column existed; none once those are gone, and then a single index probe
            deleted += statements.deleteFinished(status.code(), finishedBefore, true, limit - deleted);
        }
        return deleted;
    }

    @Override
    public void checkSchema() {
        Set<String> columns = columnsOf(this.tables.logs());
        if (columns != null && !columns.contains("finished_at")) {
            throw new IllegalStateException(schemaMessage(this.tables.sql(MISSING_FINISHED_AT)));
        }
        if (this.traced) {
            columns = columnsOf(this.tables.tasks());
            if (columns != null && !columns.contains("trace_context")) {
                throw new IllegalStateException(schemaMessage(this.tables.sql(MISSING_TRACE_CONTEXT)));
            }
            if (!logsKeepContext() && columnsOf(this.tables.logs()) != null) {
                logger.info("The delay-task schema has no column " + this.tables.logs()
                        + ".trace_context (schemas of earlier "
                        + "versions lack it): a dead task that is requeued runs without the context its add "
                        + "carried, and starts a trace of its own. Add it with the statement of the README "
                        + "('Upgrading a schema created by an earlier version') to keep it");
            }
        }
        // after the checks of single columns, whose messages say more of them
        if (this.validateSchema.getAsBoolean()) {
            List<String> missing = this.statementsJdbc.execute((ConnectionCallback<List<String>>) (connection) ->
                    SchemaCheck.missing(connection, this::columnsOf, this.traced, this.storeTable, this.tables));
            if (missing != null && !missing.isEmpty()) {
                throw new IllegalStateException(
                        schemaMessage(MISSING_SCHEMA + String.join("; ", missing) + MISSING_SCHEMA_FIX));
            }
        }
    }

    /**
     * A message of what the schema lacks, which names the tables with their prefix, and says that the scripts and
     * statements it points to use the plain names.
     */
    private String schemaMessage(String message) {
        String prefix = this.tables.prefix();
        return prefix.isEmpty() ? message : message + ". The scripts and statements it points to "
                + "name the plain tables: with delay-task.jdbc.table-prefix '" + prefix + "', put the prefix before "
                + "taskinfo in every table and index name (the script delay-task.jdbc.initialize-schema=always runs "
                + "does so itself)";
    }

    /**
     * The columns of a table in lower case; null when there is no such table: a schema still to be created, or in
     * another schema than the one searched first, which the statements that use it will report.
     */
    private Set<String> columnsOf(String table) {
        Set<String> columns = new HashSet<>();
        try {
            this.jdbc.query("SELECT * FROM " + table + " WHERE 1 = 0", (ResultSetExtractor<Void>) (rows) -> {
                ResultSetMetaData metaData = rows.getMetaData();
                for (int i = 1; i <= metaData.getColumnCount(); i++) {
                    columns.add(metaData.getColumnName(i).toLowerCase(Locale.ROOT));
                }
                return null;
            });
        }
        catch (BadSqlGrammarException ex) {
            return null;
        }
        return columns;
    }

    @Override
    public String storeId() {
        List<String> ids;
        try {
            ids = this.jdbc.queryForList("SELECT store_id FROM " + this.tables.store() + " WHERE id = 1", String.class);
        }
        catch (BadSqlGrammarException ex) {
            throw new IllegalStateException(schemaMessage(this.tables.sql(MISSING_STORE_ID)) + " ("
                    + ex.getMostSpecificCause().getMessage() + ")", ex);
        }
        if (ids.isEmpty() || ids.get(0) == null || ids.get(0).isBlank()) {
            throw new IllegalStateException(schemaMessage(this.tables.sql(MISSING_STORE_ID)));
        }
        return ids.get(0).trim();
    }

    /**
     * The final status of a task that leaves {@code taskinfo}, and when it got it. The log's version ends above every
     * version the task's row had, so that a requeued task starts above them too: an old consumer's acknowledgement
     * can never match a claim of the requeued task.
     */
    /**
     * @param carried the context the task carried, kept for a requeue of a dead task; null to leave the column alone
     */
    private void updateLog(long taskId, TaskStatus status, int attempts, int taskVersion, String error,
            @Nullable String carried) {
        this.logs.update(null, Wrappers.<TaskInfoLog>update()
            .set("status", status.code())
            .set("attempts", attempts)
            .set("last_error", error)
            .set(carried != null, "trace_context", carried)
            .setSql("version = GREATEST(version, " + taskVersion + ") + 1")
            .setSql("finished_at = (" + statements().clockExpression() + ")")
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

    private static StoredTask toStoredTask(TaskInfo row) {
        return new StoredTask(row.getTaskId(), row.getTaskType(), row.getPriority(), row.getExecuteTime(),
                row.getParameters(), row.getVersion(), (row.getAttempts() != null) ? row.getAttempts() : 0,
                row.getLeaseUntil(), null, row.getBizKey());
    }

}
