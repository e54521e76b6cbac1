package io.github.delaytask.scale;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Writes a worker's figures to its row of {@code worker_stats} every second: the {@link CountingTaskQueues claims},
 * and how many threads waited for a database connection, sampled every 100 ms.
 */
final class WorkerStats implements SmartLifecycle, Runnable {

    private static final Log logger = LogFactory.getLog(WorkerStats.class);

    private static final long SAMPLE_MILLIS = 100;

    private static final int SAMPLES_PER_WRITE = 10;

    private static final String UPSERT = "INSERT INTO worker_stats (worker, claims, claims_with_tasks, "
            + "claimed_tasks, pool_samples, pool_waiting, pool_most_waiting, written_at) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (worker) DO UPDATE SET claims = EXCLUDED.claims, "
            + "claims_with_tasks = EXCLUDED.claims_with_tasks, claimed_tasks = EXCLUDED.claimed_tasks, "
            + "pool_samples = EXCLUDED.pool_samples, pool_waiting = EXCLUDED.pool_waiting, "
            + "pool_most_waiting = EXCLUDED.pool_most_waiting, written_at = EXCLUDED.written_at";

    private final String workerId;

    private final CountingTaskQueues queues;

    private final HikariDataSource dataSource;

    private final JdbcTemplate jdbc;

    private long poolSamples;

    private long poolWaiting;

    private long poolMostWaiting;

    private volatile Thread thread;

    WorkerStats(String workerId, CountingTaskQueues queues, HikariDataSource dataSource) {
        this.workerId = workerId;
        this.queues = queues;
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    @Override
    public void start() {
        Thread thread = new Thread(this, "scale-worker-stats");
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

    @Override
    public void run() {
        while (this.thread != null) {
            try {
                for (int i = 0; i < SAMPLES_PER_WRITE; i++) {
                    Thread.sleep(SAMPLE_MILLIS);
                    // the pool starts with the first connection, which the schema script took before this runs
                    HikariPoolMXBean pool = this.dataSource.getHikariPoolMXBean();
                    int waiting = (pool != null) ? pool.getThreadsAwaitingConnection() : 0;
                    this.poolSamples++;
                    this.poolWaiting += waiting;
                    this.poolMostWaiting = Math.max(this.poolMostWaiting, waiting);
                }
                this.jdbc.update(UPSERT, this.workerId, this.queues.claims(), this.queues.claimsWithTasks(),
                        this.queues.claimedTasks(), this.poolSamples, this.poolWaiting, this.poolMostWaiting,
                        System.currentTimeMillis());
            }
            catch (InterruptedException ex) {
                return;
            }
            catch (RuntimeException ex) {
                logger.warn("Could not write the worker's figures", ex);
            }
        }
    }

}
