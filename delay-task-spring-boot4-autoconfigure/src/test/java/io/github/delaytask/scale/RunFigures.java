package io.github.delaytask.scale;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delaytask.TaskStatus;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;

/**
 * What the database says about a run of the scale test: the delay-task tables and the workers' {@code runs},
 * {@code lock_tries} and {@code worker_stats}.
 */
final class RunFigures {

    private static final int EXECUTED = TaskStatus.EXECUTED.code();

    /** Neither executed nor with a recorded run: a task that was lost. */
    private static final String LOST = "SELECT COUNT(*) FROM taskinfo_logs l WHERE l.status <> " + EXECUTED
            + " OR NOT EXISTS (SELECT 1 FROM runs r WHERE r.task_id = l.task_id)";

    private static final String DUPLICATED = "SELECT COUNT(*) FROM (SELECT task_id FROM runs GROUP BY task_id "
            + "HAVING COUNT(*) > 1) d";

    private static final String LATENESS = "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY late), "
            + "percentile_disc(0.99) WITHIN GROUP (ORDER BY late), MAX(late) FROM (SELECT r.started_at - l.execute_time "
            + "AS late FROM runs r JOIN taskinfo_logs l ON l.task_id = r.task_id) t";

    private final ScaleSchema schema;

    private final JdbcTemplate jdbc;

    RunFigures(ScaleSchema schema) {
        this.schema = schema;
        this.jdbc = schema.jdbc();
    }

    long tasks() {
        return this.schema.count("SELECT COUNT(*) FROM taskinfo_logs");
    }

    long executed() {
        return this.schema.count("SELECT COUNT(*) FROM taskinfo_logs WHERE status = ?", EXECUTED);
    }

    long live() {
        return this.schema.count("SELECT COUNT(*) FROM taskinfo");
    }

    long runs() {
        return this.schema.count("SELECT COUNT(*) FROM runs");
    }

    long lost() {
        return this.schema.count(LOST);
    }

    long duplicated() {
        return this.schema.count(DUPLICATED);
    }

    /** First and last handler start, epoch ms. */
    long[] firstAndLastRun() {
        return this.jdbc.queryForObject("SELECT MIN(started_at), MAX(started_at) FROM runs",
                (row, i) -> new long[] { row.getLong(1), row.getLong(2) });
    }

    /** Handler start minus execute time, in ms: median, 99th percentile, most. */
    long[] lateness() {
        return this.jdbc.queryForObject(LATENESS,
                (row, i) -> new long[] { row.getLong(1), row.getLong(2), row.getLong(3) });
    }

    /** Runs by worker. */
    Map<String, Long> runsPerWorker() {
        Map<String, Long> runs = new TreeMap<>();
        this.jdbc.query("SELECT worker, COUNT(*) FROM runs GROUP BY worker", (RowCallbackHandler) (row) -> {
            runs.put(row.getString(1), row.getLong(2));
        });
        return runs;
    }

    /** Runs of each (type, priority) pair that ran. */
    List<PairRuns> pairs() {
        return this.jdbc.query("SELECT task_type, priority, COUNT(*), COUNT(DISTINCT worker) FROM runs "
                + "GROUP BY task_type, priority",
                (row, i) -> new PairRuns(row.getInt(1), row.getInt(2), row.getLong(3), row.getInt(4)));
    }

    /** Runs per time slice since {@code origin}, by worker: slice index to worker to runs. */
    Map<Long, Map<String, Long>> timeline(long origin, long sliceMillis) {
        Map<Long, Map<String, Long>> timeline = new TreeMap<>();
        this.jdbc.query("SELECT (started_at - ?) / ?, worker, COUNT(*) FROM runs GROUP BY 1, 2", (row) -> {
            timeline.computeIfAbsent(row.getLong(1), (slice) -> new TreeMap<>()).put(row.getString(2), row.getLong(3));
        }, origin, sliceMillis);
        return timeline;
    }

    /** Lock tries between two instants, per worker and lock name. */
    List<LockTries> lockTries(long from, long to) {
        return this.jdbc.query("SELECT worker, name, COUNT(*), SUM(CASE WHEN taken THEN 1 ELSE 0 END), "
                + "MAX(try_micros), COALESCE(SUM(held_ms), 0), COALESCE(MAX(held_ms), 0) FROM lock_tries "
                + "WHERE tried_at BETWEEN ? AND ? GROUP BY worker, name ORDER BY name, worker",
                (row, i) -> new LockTries(row.getString(1), row.getString(2), row.getLong(3), row.getLong(4),
                        row.getLong(5), row.getLong(6), row.getLong(7)),
                from, to);
    }

    /** Every lock name any worker tried, at any time. */
    List<String> lockNames() {
        return this.jdbc.queryForList("SELECT DISTINCT name FROM lock_tries ORDER BY name", String.class);
    }

    /** Each run of a lock's job between two instants, in order. */
    List<HeldLock> heldLocks(String name, long from, long to) {
        return this.jdbc.query("SELECT worker, tried_at, held_ms FROM lock_tries WHERE name = ? AND taken "
                + "AND tried_at BETWEEN ? AND ? ORDER BY tried_at",
                (row, i) -> new HeldLock(row.getString(1), row.getLong(2), row.getLong(3)), name, from, to);
    }

    /** Transactions committed in the whole database since the server's statistics were reset. */
    long databaseCommits() {
        // backends publish their counts about once a second, so the figure lags by up to that much
        return this.schema.count("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()");
    }

    /** The latest figures each worker wrote, by worker. */
    Map<String, WorkerFigures> workerFigures() {
        Map<String, WorkerFigures> figures = new TreeMap<>();
        this.jdbc.query("SELECT worker, claims, claims_with_tasks, claimed_tasks, pool_samples, pool_waiting, "
                + "pool_most_waiting, written_at FROM worker_stats", (RowCallbackHandler) (row) -> {
                    figures.put(row.getString(1), new WorkerFigures(row.getLong(2), row.getLong(3), row.getLong(4),
                            row.getLong(5), row.getLong(6), row.getLong(7), row.getLong(8)));
                });
        return figures;
    }

    /**
     * Tries of one lock by one worker.
     * @param worker the worker
     * @param name the lock
     * @param tries how many times it tried the lock
     * @param taken how many times it got it
     * @param slowestTryMicros longest a try took, in µs (a try never waits for the lock)
     * @param heldMillis time it held the lock in all, in ms
     * @param longestHeldMillis longest it held the lock once, in ms
     */
    record LockTries(String worker, String name, long tries, long taken, long slowestTryMicros, long heldMillis,
            long longestHeldMillis) {
    }

    /**
     * Runs of one (type, priority) pair.
     * @param taskType the type
     * @param priority the priority
     * @param runs handler runs of its tasks
     * @param workers how many workers ran some of them
     */
    record PairRuns(int taskType, int priority, long runs, int workers) {
    }

    /**
     * What a worker counted since it started.
     * @param claims claim scripts its listeners ran
     * @param claimsWithTasks claim scripts that handed out at least one task
     * @param claimedTasks task ids the claim scripts handed out
     * @param poolSamples samples of the connection pool, one every 100 ms
     * @param poolWaiting threads waiting for a database connection, summed over the samples
     * @param poolMostWaiting most threads waiting for a connection in one sample
     * @param writtenAt when the figures were written, epoch ms
     */
    record WorkerFigures(long claims, long claimsWithTasks, long claimedTasks, long poolSamples, long poolWaiting,
            long poolMostWaiting, long writtenAt) {

        static final WorkerFigures NONE = new WorkerFigures(0, 0, 0, 0, 0, 0, 0);

    }

    /**
     * One run of a job under its lock.
     * @param worker the worker that ran it
     * @param takenAt when it took the lock, epoch ms
     * @param heldMillis how long it held the lock before unlocking, in ms
     */
    record HeldLock(String worker, long takenAt, long heldMillis) {
    }

}
