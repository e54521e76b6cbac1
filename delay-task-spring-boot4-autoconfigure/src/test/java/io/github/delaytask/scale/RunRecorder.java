package io.github.delaytask.scale;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;

import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Commits handler runs as rows of {@code runs}, many in one transaction: a handler waits until its row is
 * committed, so every run that returned is recorded, at a fraction of the commits one transaction per run would
 * cost (under load those commits, not the starter, would set the pace).
 */
final class RunRecorder implements SmartLifecycle, Runnable {

    private static final String INSERT = "INSERT INTO runs (task_id, task_type, priority, worker, started_at) "
            + "VALUES (?, ?, ?, ?, ?)";

    private static final int MAX_BATCH = 500;

    private final String workerId;

    private final JdbcTemplate jdbc;

    private final TransactionTemplate transactions;

    private final BlockingQueue<Run> pending = new LinkedBlockingQueue<>();

    private volatile Thread thread;

    RunRecorder(String workerId, DataSource dataSource) {
        this.workerId = workerId;
        this.jdbc = new JdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }

    /** Record that a handler started on a task, returning once the row is committed. */
    void record(DelayTask task) {
        Run run = new Run(task, System.currentTimeMillis(), new CompletableFuture<>());
        this.pending.add(run);
        run.committed().join();
    }

    @Override
    public void start() {
        Thread thread = new Thread(this, "scale-run-recorder");
        thread.setDaemon(true);
        this.thread = thread;
        thread.start();
    }

    @Override
    public void stop() {
        Thread thread = this.thread;
        this.thread = null;
        if (thread != null) {
            thread.interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return this.thread != null;
    }

    /** Stop after the listeners, whose handlers wait for this. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 1000;
    }

    @Override
    public void run() {
        while (this.thread != null) {
            List<Run> batch = new ArrayList<>();
            try {
                Run first = this.pending.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                this.pending.drainTo(batch, MAX_BATCH - 1);
                this.transactions.executeWithoutResult((status) -> this.jdbc.batchUpdate(INSERT, batch, batch.size(),
                        (statement, run) -> {
                            statement.setLong(1, run.task().getTaskId());
                            statement.setInt(2, run.task().getTaskType());
                            statement.setInt(3, run.task().getPriority());
                            statement.setString(4, this.workerId);
                            statement.setLong(5, run.startedAt());
                        }));
                batch.forEach((run) -> run.committed().complete(null));
            }
            catch (InterruptedException ex) {
                batch.forEach((run) -> run.committed().completeExceptionally(ex));
                return;
            }
            catch (RuntimeException ex) {
                batch.forEach((run) -> run.committed().completeExceptionally(ex));
            }
        }
        IllegalStateException stopped = new IllegalStateException("The recorder stopped");
        this.pending.forEach((run) -> run.committed().completeExceptionally(stopped));
    }

    private record Run(DelayTask task, long startedAt, CompletableFuture<Void> committed) {
    }

}
