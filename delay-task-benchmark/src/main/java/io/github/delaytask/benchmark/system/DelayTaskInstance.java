package io.github.delaytask.benchmark.system;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.scheduling.DelayTaskJobs;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * A running delay-task application, with its own schema or database and key prefix.
 */
final class DelayTaskInstance implements Instance {

    private final ConfigurableApplicationContext context;

    private final DelayTaskService tasks;

    private final Storage storage;

    private final StatementCapture statements;

    private final RedisAdmin redis;

    private final String keys;

    private final boolean ownsStorage;

    /** The tasks of {@link TaskKind#QUEUES} added so far, for the round robin. */
    private final AtomicLong spread = new AtomicLong();

    /**
     * @param ownsStorage whether closing it drops the storage and the keys
     */
    DelayTaskInstance(ConfigurableApplicationContext context, Storage storage, StatementCapture statements,
            RedisAdmin redis, String keys, boolean ownsStorage) {
        this.context = context;
        this.ownsStorage = ownsStorage;
        this.tasks = context.getBean(DelayTaskService.class);
        this.storage = storage;
        this.statements = statements;
        this.redis = redis;
        this.keys = keys;
    }

    @Override
    public void add(BenchTask task) {
        this.tasks.addTask(toDelayTask(task));
    }

    @Override
    public void addBatch(List<BenchTask> tasks) {
        List<DelayTask> batch = new ArrayList<>(tasks.size());
        tasks.forEach((task) -> batch.add(toDelayTask(task)));
        this.tasks.addTasks(batch);
    }

    private DelayTask toDelayTask(BenchTask task) {
        if (task.kind() == TaskKind.QUEUES) {
            long n = this.spread.getAndIncrement();
            return DelayTask.builder(QueueListeners.taskType(n))
                .priority(QueueListeners.priority(n))
                .executeAt(Instant.ofEpochMilli(task.executeTimeMillis()))
                .build();
        }
        return DelayTask.builder(taskType(task.kind()))
            .executeAt(Instant.ofEpochMilli(task.executeTimeMillis()))
            .build();
    }

    private static int taskType(TaskKind kind) {
        return (kind == TaskKind.TASK) ? DelayTaskBenchApplication.TASK_TYPE : DelayTaskBenchApplication.BACKLOG_TYPE;
    }

    @Override
    public boolean anyUnfinished(TaskKind kind, long dueUpToMillis) {
        // a finished task leaves taskinfo in the transaction that marks its log EXECUTED; the ORDER BY makes it
        // a walk of the execute_time index that stops at the first row, whatever the table holds
        if (kind == TaskKind.QUEUES) {
            return this.storage.exists("SELECT task_id FROM taskinfo WHERE execute_time <= ? AND task_type BETWEEN ? "
                    + "AND ? ORDER BY execute_time LIMIT 1", dueUpToMillis, QueueListeners.FIRST_TYPE,
                    QueueListeners.FIRST_TYPE + QueueListeners.TYPES - 1);
        }
        return this.storage.exists("SELECT task_id FROM taskinfo WHERE execute_time <= ? AND task_type = ? "
                + "ORDER BY execute_time LIMIT 1", dueUpToMillis, taskType(kind));
    }

    @Override
    public void clear() {
        this.storage.execute("TRUNCATE TABLE taskinfo", "TRUNCATE TABLE taskinfo_logs");
        // the queues' loaded markers stay, as they do in a Redis that keeps its data: with both emptied, Redis still
        // holds every task the database does, and without its marker a queue's first claim of the next phase has the
        // recovery reload the whole table, beside the phase's own work
        this.redis.delete(this.keys, (key) -> key.endsWith(":loaded"));
    }

    @Override
    public OptionalLong redisBytes() {
        return OptionalLong.of(this.redis.keyBytes(this.keys));
    }

    @Override
    public OptionalLong fedRows() {
        return OptionalLong.of(this.context.getBean(DelayTaskJobs.class).fedRows());
    }

    @Override
    public Optional<Reload> reload() {
        DelayTaskJobs jobs = this.context.getBean(DelayTaskJobs.class);
        long start = System.nanoTime();
        int count = jobs.reloadNow();
        return Optional.of(new Reload(Duration.ofNanos(System.nanoTime() - start), count));
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
            this.context.close();
        }
        finally {
            if (this.ownsStorage) {
                this.storage.close();
                this.redis.delete(this.keys);
            }
        }
    }

}
