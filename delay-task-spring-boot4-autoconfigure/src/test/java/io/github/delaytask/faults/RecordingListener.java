package io.github.delaytask.faults;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;

import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Records each run of a task of {@link #TASK_TYPE} as a row of {@code fault_runs}, committed before the handler's
 * work, so that a run cut short by a kill still counts; then works for {@code fault.handler-millis} on average, and
 * fails then when {@code fault.fail} is true.
 */
class RecordingListener {

    static final int TASK_TYPE = 1;

    static final String WORKER_ID = "fault.worker-id";

    static final String HANDLER_MILLIS = "fault.handler-millis";

    static final String FAIL = "fault.fail";

    private final JdbcTemplate jdbc;

    private final String workerId;

    private final long handlerMillis;

    private final boolean fail;

    /** The database's time in epoch ms, as SQL. */
    private final String now;

    RecordingListener(DataSource dataSource, Environment environment) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.workerId = environment.getProperty(WORKER_ID, "in-process");
        this.handlerMillis = environment.getProperty(HANDLER_MILLIS, Long.class, 0L);
        this.fail = environment.getProperty(FAIL, Boolean.class, false);
        this.now = databaseNow(this.jdbc);
    }

    /** The database's time in epoch ms, as SQL. */
    static String databaseNow(JdbcTemplate jdbc) {
        String product = jdbc.execute((ConnectionCallback<String>) (connection) -> connection.getMetaData()
            .getDatabaseProductName());
        return product.toLowerCase(java.util.Locale.ROOT).contains("postgres")
                ? "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
                : "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000";
    }

    @DelayTaskListener(taskType = TASK_TYPE)
    void run(DelayTask task) throws InterruptedException {
        // the database's clock, the same for every worker: a test may give a worker a wall clock of its own
        this.jdbc.update("INSERT INTO fault_runs (task_id, worker, started_at) VALUES (?, ?, " + this.now + ")",
                task.getTaskId(), this.workerId);
        if (this.handlerMillis > 0) {
            // the handler's work, from half to one and a half times the given time, so that handlers end at
            // different moments rather than in step
            long millis = this.handlerMillis / 2 + ThreadLocalRandom.current().nextLong(this.handlerMillis);
            TimeUnit.MILLISECONDS.sleep(millis);
        }
        if (this.fail) {
            throw new IllegalStateException("fault: the handler fails, as asked");
        }
    }

}
