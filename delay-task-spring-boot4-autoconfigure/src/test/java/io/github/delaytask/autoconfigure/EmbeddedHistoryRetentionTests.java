package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * The retention of the task log, on an embedded Redis and an in-memory H2.
 */
class EmbeddedHistoryRetentionTests extends AbstractHistoryRetentionTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

    @Override
    protected int volume() {
        return 50_000;
    }

    @Override
    protected String insertExecutedSeries() {
        return "INSERT INTO taskinfo_logs (task_id, task_type, priority, execute_time, version, status, attempts, "
                + "finished_at) SELECT ? + X, ?, 0, ? + X, 2, 1, 1, ? + X FROM SYSTEM_RANGE(1, ?)";
    }

}
