package io.github.delaytask.faults;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import org.awaitility.core.ConditionTimeoutException;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.awaitility.Awaitility.await;

/**
 * The test's view of its database, straight to the server (never through a test's proxy): the delay-task schema,
 * the {@code fault_runs} table the {@link RecordingListener} fills, and the figures of a run: lost tasks (neither
 * executed with a recorded run nor cancelled) and duplicated ones (run more than once).
 */
final class FaultRuns {

    private static final int TYPE = RecordingListener.TASK_TYPE;

    private static final String LOST = "SELECT COUNT(*) FROM taskinfo_logs l WHERE l.task_type = " + TYPE
            + " AND (l.status NOT IN (" + TaskStatus.EXECUTED.code() + ", " + TaskStatus.CANCELLED.code() + ")"
            + " OR (l.status = " + TaskStatus.EXECUTED.code()
            + " AND NOT EXISTS (SELECT 1 FROM fault_runs r WHERE r.task_id = l.task_id)))";

    private static final String DUPLICATED = "SELECT task_id FROM fault_runs GROUP BY task_id HAVING COUNT(*) > 1";

    private static final String CANCELLED_BUT_RAN = "SELECT COUNT(*) FROM taskinfo_logs l WHERE l.task_type = " + TYPE
            + " AND l.status = " + TaskStatus.CANCELLED.code()
            + " AND EXISTS (SELECT 1 FROM fault_runs r WHERE r.task_id = l.task_id)";

    private final JdbcTemplate jdbc;

    FaultRuns(TestBackend backend) {
        try {
            this.jdbc = new JdbcTemplate(new SimpleDriverDataSource(DriverManager.getDriver(backend.jdbcUrl()),
                    backend.jdbcUrl(), backend.jdbcUsername(), ""));
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Create the delay-task tables from the starter's own script, {@code fault_runs} and {@code fault_adds}. */
    void createSchema(String platform) {
        new ResourceDatabasePopulator(new ClassPathResource("META-INF/delay-task/sql/schema-" + platform + ".sql"))
            .execute(this.jdbc.getDataSource());
        this.jdbc.execute("CREATE TABLE fault_runs (task_id BIGINT NOT NULL, worker VARCHAR(32) NOT NULL, "
                + "started_at BIGINT NOT NULL)");
        this.jdbc.execute("CREATE TABLE fault_adds (task_id BIGINT NOT NULL, added_at BIGINT NOT NULL)");
    }

    long count(String sql, Object... args) {
        Long count = this.jdbc.queryForObject(sql, Long.class, args);
        return (count != null) ? count : 0;
    }

    long runsBy(String worker) {
        return count("SELECT COUNT(*) FROM fault_runs WHERE worker = ?", worker);
    }

    /** Runs by worker, most first. */
    Map<String, Long> runsPerWorker() {
        Map<String, Long> runs = new LinkedHashMap<>();
        this.jdbc.query("SELECT worker, COUNT(*) AS runs FROM fault_runs GROUP BY worker ORDER BY runs DESC",
                (row) -> {
                    runs.put(row.getString(1), row.getLong(2));
                });
        return runs;
    }

    /** The runs of a task, first first. */
    List<Run> runsOf(long taskId) {
        return this.jdbc.query("SELECT worker, started_at FROM fault_runs WHERE task_id = ? ORDER BY started_at",
                (row, i) -> new Run(row.getString(1), row.getLong(2)), taskId);
    }

    Set<Long> duplicated() {
        return new HashSet<>(this.jdbc.queryForList(DUPLICATED, Long.class));
    }

    /** Tasks whose handler the worker started and that are not finished. */
    Set<Long> startedButUnfinished(String worker) {
        return new HashSet<>(this.jdbc.queryForList("SELECT DISTINCT r.task_id FROM fault_runs r "
                + "JOIN taskinfo t ON t.task_id = r.task_id WHERE r.worker = ?", Long.class, worker));
    }

    /** Status of every task of the recording listener's type. */
    Map<Long, TaskStatus> statuses() {
        Map<Long, TaskStatus> statuses = new HashMap<>();
        this.jdbc.query("SELECT task_id, status FROM taskinfo_logs WHERE task_type = ?", (row) -> {
            statuses.put(row.getLong(1), TaskStatus.fromCode(row.getInt(2)));
        }, TYPE);
        return statuses;
    }

    /** Number of runs of every task that ran. */
    Map<Long, Long> runCounts() {
        Map<Long, Long> counts = new HashMap<>();
        this.jdbc.query("SELECT task_id, COUNT(*) FROM fault_runs GROUP BY task_id", (row) -> {
            counts.put(row.getLong(1), row.getLong(2));
        });
        return counts;
    }

    TaskStatus status(long taskId) {
        Integer code = this.jdbc.queryForObject("SELECT status FROM taskinfo_logs WHERE task_id = ?", Integer.class,
                taskId);
        return TaskStatus.fromCode(code);
    }

    /**
     * Wait until no task is scheduled any more, and return the figures; on a timeout print them before failing.
     */
    Figures awaitSettled(String name, Duration timeout) {
        try {
            await().atMost(timeout)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> count("SELECT COUNT(*) FROM taskinfo_logs WHERE status = ?",
                        TaskStatus.SCHEDULED.code()) == 0);
        }
        catch (ConditionTimeoutException ex) {
            print(name, "(timed out with tasks still scheduled)");
            throw ex;
        }
        return figures();
    }

    Figures figures() {
        long tasks = count("SELECT COUNT(*) FROM taskinfo_logs WHERE task_type = ?", TYPE);
        long executed = count("SELECT COUNT(*) FROM taskinfo_logs WHERE task_type = ? AND status = ?", TYPE,
                TaskStatus.EXECUTED.code());
        long cancelled = count("SELECT COUNT(*) FROM taskinfo_logs WHERE task_type = ? AND status = ?", TYPE,
                TaskStatus.CANCELLED.code());
        return new Figures(tasks, executed, cancelled, count(LOST), duplicated().size(), count(CANCELLED_BUT_RAN));
    }

    /** Print the figures as {@code fault: <name> tasks=N lost=L duplicates=D ...}. */
    void print(String name, String more) {
        Figures figures = figures();
        System.out.println("fault: " + name + " tasks=" + figures.tasks() + " lost=" + figures.lost() + " duplicates="
                + figures.duplicates() + " executed=" + figures.executed() + " cancelled=" + figures.cancelled()
                + " runs-per-worker=" + runsPerWorker() + (more.isEmpty() ? "" : " " + more));
    }

    /**
     * @param tasks tasks of the recording listener's type
     * @param executed of which executed
     * @param cancelled of which cancelled
     * @param lost neither executed with a run recorded nor cancelled
     * @param duplicates run more than once
     * @param cancelledButRan cancelled although their handler ran
     */
    record Figures(long tasks, long executed, long cancelled, long lost, long duplicates, long cancelledButRan) {
    }

    /**
     * @param worker the worker that ran the handler
     * @param startedAt when, epoch ms
     */
    record Run(String worker, long startedAt) {
    }

}
