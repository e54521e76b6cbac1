package io.github.delaytask.store.mybatis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.toolkit.Wrappers;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link TaskStore} on MyBatis-Plus. Public for wiring.
 * <p>
 * Claims and releases go through the {@code @Version} optimistic lock; deletes state the version themselves, since
 * MyBatis-Plus checks it on updates only. Every change of two rows runs in one transaction, joining the caller's.
 */
public class MybatisTaskStore implements TaskStore {

    private static final String CLAIM = "UPDATE taskinfo SET version = version + 1, attempts = attempts + 1, "
            + "lease_until = ? WHERE task_id = ? AND version = ?";

    private static final String INSERT_TASK = "INSERT INTO taskinfo (task_id, task_type, priority, execute_time, "
            + "parameters, version, attempts) VALUES (?, ?, ?, ?, ?, 1, 0)";

    private static final String INSERT_LOG = "INSERT INTO taskinfo_logs (task_id, task_type, priority, execute_time, "
            + "parameters, version, status, attempts) VALUES (?, ?, ?, ?, ?, 1, ?, 0)";

    private static final String DELETE_CLAIMED = "DELETE FROM taskinfo WHERE task_id = ? AND version = ?";

    private static final String LOG_EXECUTED = "UPDATE taskinfo_logs SET status = ?, attempts = ?, last_error = NULL, "
            + "version = version + 1 WHERE task_id = ?";

    /** Cancel and reschedule retry a few times when a concurrent change (not a claim) bumped the version. */
    private static final int CANCEL_ATTEMPTS = 3;

    private final TaskInfoMapper tasks;

    private final TaskInfoLogMapper logs;

    private final TransactionTemplate transactions;

    private final TransactionTemplate nestedTransactions;

    private final DatabaseClock clock;

    private final JdbcTemplate jdbc;

    private final IdentifierGenerator ids;

    public MybatisTaskStore(TaskInfoMapper tasks, TaskInfoLogMapper logs, TransactionTemplate transactions,
            JdbcTemplate jdbc, IdentifierGenerator ids) {
        this.tasks = tasks;
        this.logs = logs;
        this.transactions = transactions;
        this.nestedTransactions = new TransactionTemplate(transactions.getTransactionManager());
        this.nestedTransactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        this.clock = new DatabaseClock(jdbc);
        this.jdbc = jdbc;
        this.ids = ids;
    }

    @Override
    public Insertion insert(NewTask task) {
        if (task.bizKey() == null) {
            return created(this.transactions.execute((status) -> insertRows(task)));
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
        List<Insertion> insertions = this.transactions.execute((status) -> {
            List<StoredTask> plain = new ArrayList<>(tasks.size());
            Insertion[] result = new Insertion[tasks.size()];
            for (int i = 0; i < tasks.size(); i++) {
                NewTask task = tasks.get(i);
                if (task.bizKey() != null) {
                    result[i] = insert(task);
                }
                else {
                    long id = (task.taskId() != null) ? task.taskId() : this.ids.nextId(null).longValue();
                    StoredTask stored = new StoredTask(id, task.taskType(), task.priority(), task.executeTime(),
                            task.parameters(), 1, 0, null);
                    plain.add(stored);
                    result[i] = new Insertion(id, stored);
                }
            }
            this.jdbc.batchUpdate(INSERT_TASK, plain, plain.size(), (statement, task) -> {
                statement.setLong(1, task.taskId());
                statement.setInt(2, task.taskType());
                statement.setInt(3, task.priority());
                statement.setLong(4, task.executeTime());
                statement.setBytes(5, task.parameters());
            });
            this.jdbc.batchUpdate(INSERT_LOG, plain, plain.size(), (statement, task) -> {
                statement.setLong(1, task.taskId());
                statement.setInt(2, task.taskType());
                statement.setInt(3, task.priority());
                statement.setLong(4, task.executeTime());
                statement.setBytes(5, task.parameters());
                statement.setInt(6, TaskStatus.SCHEDULED.code());
            });
            return List.of(result);
        });
        return (insertions != null) ? insertions : List.of();
    }

    private StoredTask insertRows(NewTask task) {
        TaskInfo row = new TaskInfo();
        row.setTaskId(task.taskId());
        row.setTaskType(task.taskType());
        row.setPriority(task.priority());
        row.setExecuteTime(task.executeTime());
        row.setParameters(task.parameters());
        row.setBizKey(task.bizKey());
        row.setVersion(1);
        row.setAttempts(0);
        this.tasks.insert(row);
        TaskInfoLog log = new TaskInfoLog();
        log.setTaskId(row.getTaskId());
        log.setTaskType(task.taskType());
        log.setPriority(task.priority());
        log.setExecuteTime(task.executeTime());
        log.setParameters(task.parameters());
        log.setBizKey(task.bizKey());
        log.setVersion(1);
        log.setStatus(TaskStatus.SCHEDULED.code());
        log.setAttempts(0);
        this.logs.insert(log);
        return toStoredTask(row);
    }

    @Override
    public Long findLiveIdByBizKey(String bizKey) {
        TaskInfo row = this.tasks.selectOne(Wrappers.<TaskInfo>query().select("task_id").eq("biz_key", bizKey));
        return (row != null) ? row.getTaskId() : null;
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
            row.setVersion(1);
            row.setAttempts(0);
            this.tasks.insert(row);
            return toStoredTask(row);
        });
    }

    @Override
    public StoredTask reschedule(long taskId, long executeTime) {
        for (int attempt = 0; attempt < CANCEL_ATTEMPTS; attempt++) {
            TaskInfo row = this.tasks.selectById(taskId);
            if (row == null || row.getLeaseUntil() != null) {
                return null;
            }
            StoredTask moved = this.transactions.execute((tx) -> {
                TaskInfo change = new TaskInfo();
                change.setVersion(row.getVersion());
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
                row.setExecuteTime(executeTime);
                row.setVersion(row.getVersion() + 1);
                return toStoredTask(row);
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
        return toStoredTasks(this.tasks.selectList(Wrappers.<TaskInfo>query().in("task_id", taskIds)));
    }

    @Override
    public List<StoredTask> claimAll(List<StoredTask> tasks, long leaseUntil) {
        // the hot path: one JDBC batch in one transaction (one commit, not one per row), with the same version
        // check MyBatis-Plus makes on the single-row paths
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
            updateLog(claimed.taskId(), status, claimed.attempts(), error);
            return true;
        });
        return Boolean.TRUE.equals(finished);
    }

    @Override
    public List<StoredTask> finishAllExecuted(List<StoredTask> claimed) {
        List<StoredTask> finished = this.transactions.execute((tx) -> {
            int[][] counts = this.jdbc.batchUpdate(DELETE_CLAIMED, claimed, claimed.size(), (statement, task) -> {
                statement.setLong(1, task.taskId());
                statement.setInt(2, task.version());
            });
            List<StoredTask> deleted = new ArrayList<>(claimed.size());
            int i = 0;
            for (int[] batch : counts) {
                for (int count : batch) {
                    StoredTask task = claimed.get(i++);
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
                statement.setInt(2, task.attempts());
                statement.setLong(3, task.taskId());
            });
            return deleted;
        });
        return (finished != null) ? finished : List.of();
    }

    @Override
    public boolean unclaim(StoredTask claimed) {
        TaskInfo change = new TaskInfo();
        change.setVersion(claimed.version());
        change.setAttempts(claimed.attempts() - 1);
        return this.tasks.update(change,
                Wrappers.<TaskInfo>update().eq("task_id", claimed.taskId()).set("lease_until", null)) == 1;
    }

    @Override
    public boolean release(StoredTask claimed, long executeTime, String error) {
        Boolean released = this.transactions.execute((tx) -> {
            TaskInfo change = new TaskInfo();
            change.setVersion(claimed.version());
            change.setExecuteTime(executeTime);
            int updated = this.tasks.update(change,
                    Wrappers.<TaskInfo>update().eq("task_id", claimed.taskId()).set("lease_until", null));
            if (updated == 0) {
                return false;
            }
            this.logs.update(null, Wrappers.<TaskInfoLog>update()
                .set("attempts", claimed.attempts())
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
            TaskInfo row = this.tasks.selectById(taskId);
            if (row == null || row.getLeaseUntil() != null) {
                return null;
            }
            Boolean cancelled = this.transactions.execute((tx) -> {
                int deleted = this.tasks.delete(Wrappers.<TaskInfo>query()
                    .eq("task_id", taskId)
                    .eq("version", row.getVersion())
                    .isNull("lease_until"));
                if (deleted == 0) {
                    return false;
                }
                updateLog(taskId, TaskStatus.CANCELLED, row.getAttempts(), null);
                return true;
            });
            if (Boolean.TRUE.equals(cancelled)) {
                return toStoredTask(row);
            }
        }
        return null;
    }

    @Override
    public List<StoredTask> findDue(long horizon, long afterExecuteTime, long afterTaskId, int limit) {
        return toStoredTasks(this.tasks.selectList(Wrappers.<TaskInfo>query()
            .select("task_id", "task_type", "priority", "execute_time", "version", "attempts", "lease_until")
            .le("execute_time", horizon)
            .and((w) -> w.gt("execute_time", afterExecuteTime)
                .or((same) -> same.eq("execute_time", afterExecuteTime).gt("task_id", afterTaskId)))
            .orderByAsc("execute_time", "task_id")
            .last("LIMIT " + limit)));
    }

    @Override
    public long currentTimeMillis() {
        return this.clock.currentTimeMillis();
    }

    private void updateLog(long taskId, TaskStatus status, Integer attempts, String error) {
        this.logs.update(null, Wrappers.<TaskInfoLog>update()
            .set("status", status.code())
            .set("attempts", (attempts != null) ? attempts : 0)
            .set("last_error", error)
            .setSql("version = version + 1")
            .eq("task_id", taskId));
    }

    private static TaskDetails toDetails(TaskInfoLog log) {
        return new TaskDetails(log.getTaskId(), log.getTaskType(), log.getPriority(),
                Instant.ofEpochMilli(log.getExecuteTime()), TaskStatus.fromCode(log.getStatus()),
                (log.getAttempts() != null) ? log.getAttempts() : 0, log.getLastError(), log.getBizKey(),
                log.getParameters());
    }

    private static List<StoredTask> toStoredTasks(List<TaskInfo> rows) {
        List<StoredTask> result = new ArrayList<>(rows.size());
        rows.forEach((row) -> result.add(toStoredTask(row)));
        return result;
    }

    private static StoredTask toStoredTask(TaskInfo row) {
        return new StoredTask(row.getTaskId(), row.getTaskType(), row.getPriority(), row.getExecuteTime(),
                row.getParameters(), row.getVersion(), (row.getAttempts() != null) ? row.getAttempts() : 0,
                row.getLeaseUntil());
    }

}
