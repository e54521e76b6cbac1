package io.github.delaytask.store.mybatis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import com.baomidou.mybatisplus.core.toolkit.Wrappers;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link TaskStore} on MyBatis-Plus. Public for wiring.
 * <p>
 * Claims and releases go through the {@code @Version} optimistic lock; deletes state the version themselves, since
 * MyBatis-Plus checks it on updates only. Every change of two rows runs in one transaction, joining the caller's.
 */
public class MybatisTaskStore implements TaskStore {

    /** Cancel retries a few times when a concurrent change (not a claim) bumped the version under it. */
    private static final int CANCEL_ATTEMPTS = 3;

    private final TaskInfoMapper tasks;

    private final TaskInfoLogMapper logs;

    private final TransactionTemplate transactions;

    private final DatabaseClock clock;

    public MybatisTaskStore(TaskInfoMapper tasks, TaskInfoLogMapper logs, TransactionTemplate transactions,
            JdbcTemplate jdbc) {
        this.tasks = tasks;
        this.logs = logs;
        this.transactions = transactions;
        this.clock = new DatabaseClock(jdbc);
    }

    @Override
    public StoredTask insert(Long taskId, int taskType, int priority, long executeTime, byte[] parameters) {
        TaskInfo row = new TaskInfo();
        row.setTaskId(taskId);
        row.setTaskType(taskType);
        row.setPriority(priority);
        row.setExecuteTime(executeTime);
        row.setParameters(parameters);
        row.setVersion(1);
        row.setAttempts(0);
        return this.transactions.execute((status) -> {
            this.tasks.insert(row);
            TaskInfoLog log = new TaskInfoLog();
            log.setTaskId(row.getTaskId());
            log.setTaskType(taskType);
            log.setPriority(priority);
            log.setExecuteTime(executeTime);
            log.setParameters(parameters);
            log.setVersion(1);
            log.setStatus(TaskStatus.SCHEDULED.code());
            log.setAttempts(0);
            this.logs.insert(log);
            return toStoredTask(row);
        });
    }

    @Override
    public List<StoredTask> findLive(Collection<Long> taskIds) {
        if (taskIds.isEmpty()) {
            return List.of();
        }
        return toStoredTasks(this.tasks.selectList(Wrappers.<TaskInfo>query().in("task_id", taskIds)));
    }

    @Override
    public boolean claim(StoredTask task, long leaseUntil) {
        TaskInfo change = new TaskInfo();
        change.setVersion(task.version());
        change.setLeaseUntil(leaseUntil);
        change.setAttempts(task.attempts() + 1);
        return this.tasks.update(change, Wrappers.<TaskInfo>update().eq("task_id", task.taskId())) == 1;
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
