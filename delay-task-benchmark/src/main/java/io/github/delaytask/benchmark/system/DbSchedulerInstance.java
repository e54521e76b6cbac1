package io.github.delaytask.benchmark.system;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.zaxxer.hikari.HikariDataSource;

/**
 * A running db-scheduler with its own schema. A task instance's id is a sequence number.
 */
final class DbSchedulerInstance implements Instance {

    private final Scheduler scheduler;

    private final HikariDataSource dataSource;

    private final OneTimeTask<Void> task;

    private final OneTimeTask<Void> backlog;

    private final Storage storage;

    private final StatementCapture statements;

    private final AtomicLong sequence = new AtomicLong();

    DbSchedulerInstance(Scheduler scheduler, HikariDataSource dataSource, OneTimeTask<Void> task,
            OneTimeTask<Void> backlog, Storage storage, StatementCapture statements) {
        this.scheduler = scheduler;
        this.dataSource = dataSource;
        this.task = task;
        this.backlog = backlog;
        this.storage = storage;
        this.statements = statements;
    }

    @Override
    public void add(BenchTask task) {
        this.scheduler.schedule(schedulable(task));
    }

    @Override
    public void addBatch(List<BenchTask> tasks) {
        List<SchedulableInstance<?>> batch = new ArrayList<>(tasks.size());
        tasks.forEach((task) -> batch.add(schedulable(task)));
        this.scheduler.scheduleBatch(batch);
    }

    private SchedulableInstance<Void> schedulable(BenchTask task) {
        OneTimeTask<Void> type = (task.kind() == TaskKind.TASK) ? this.task : this.backlog;
        return SchedulableInstance.of(type.instance(Long.toString(this.sequence.incrementAndGet())),
                Instant.ofEpochMilli(task.executeTimeMillis()));
    }

    @Override
    public boolean anyUnfinished(TaskKind kind, long dueUpToMillis) {
        // a one-time task's row is deleted when its handler returned; see DelayTaskInstance for the ORDER BY
        return this.storage.exists("SELECT task_instance FROM scheduled_tasks WHERE task_name = ? "
                + "AND execution_time <= ? ORDER BY execution_time LIMIT 1",
                (kind == TaskKind.TASK) ? this.task.getName() : this.backlog.getName(), new Timestamp(dueUpToMillis));
    }

    @Override
    public void clear() {
        this.storage.execute("TRUNCATE TABLE scheduled_tasks");
    }

    @Override
    public OptionalLong redisBytes() {
        return OptionalLong.empty();
    }

    @Override
    public void recordStatements(boolean on) {
        this.statements.recording(on);
    }

    @Override
    public List<String> explainRecorded() {
        return this.storage.explain(this.statements.statements());
    }

    @Override
    public void forgetStatements() {
        this.statements.forget();
    }

    @Override
    public List<TableStatistics> tableStatistics() {
        return this.storage.statistics();
    }

    @Override
    public void close() {
        try {
            this.scheduler.stop();
            this.dataSource.close();
        }
        finally {
            this.storage.close();
        }
    }

}
