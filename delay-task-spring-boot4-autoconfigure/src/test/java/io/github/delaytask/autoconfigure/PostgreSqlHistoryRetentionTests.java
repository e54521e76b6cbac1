package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * The retention of the task log, on the real Redis and PostgreSQL of 127.0.0.1, with a purge of a million rows.
 */
@Tag("real-services")
class PostgreSqlHistoryRetentionTests extends AbstractHistoryRetentionTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.postgreSql();
    }

    @Override
    protected int volume() {
        return 1_000_000;
    }

    @Override
    protected String insertExecutedSeries() {
        return "INSERT INTO taskinfo_logs (task_id, task_type, priority, execute_time, version, status, attempts, "
                + "finished_at) SELECT ? + x, ?, 0, ? + x, 2, 1, 1, ? + x FROM generate_series(1, ?) AS s (x)";
    }

}
