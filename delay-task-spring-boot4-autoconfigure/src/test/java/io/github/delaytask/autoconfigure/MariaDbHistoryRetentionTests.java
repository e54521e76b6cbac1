package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * The retention of the task log, on the real Redis and MariaDB of 127.0.0.1, with a purge of a million rows.
 */
@Tag("real-services")
class MariaDbHistoryRetentionTests extends AbstractHistoryRetentionTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.mariaDb();
    }

    @Override
    protected int volume() {
        return 1_000_000;
    }

    @Override
    protected String insertExecutedSeries() {
        // a thousand numbers by recursion, squared by a join: a million rows without a million recursions
        return "INSERT INTO taskinfo_logs (task_id, task_type, priority, execute_time, version, status, attempts, "
                + "finished_at) WITH RECURSIVE n (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999) "
                + "SELECT ? + s.x, ?, 0, ? + s.x, 2, 1, 1, ? + s.x FROM (SELECT a.i * 1000 + b.i AS x FROM n a "
                + "CROSS JOIN n b) s WHERE s.x < ?";
    }

}
