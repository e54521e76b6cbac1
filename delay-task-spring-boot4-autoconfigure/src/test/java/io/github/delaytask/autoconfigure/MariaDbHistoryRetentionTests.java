package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retention of the task log, on the real Redis and MariaDB of 127.0.0.1, with a purge of a million rows.
 */
@Tag("real-services")
class MariaDbHistoryRetentionTests extends AbstractHistoryRetentionTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.mariaDb();
    }

    /**
     * A schema upgraded by hand with the column but not the index: the index hint of MySQL and MariaDB failed every
     * purge, for ever.
     */
    @Test
    void withoutThePurgesIndexThePurgeStillDeletesWhatIsOld() {
        runner().withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            List<Long> old = executed(context, 2);
            finishedAgo(context, old, Duration.ofDays(31).toMillis());
            jdbc(context).execute("DROP INDEX idx_taskinfo_logs_finished ON taskinfo_logs");
            try {
                assertThat(context.getBean(DelayTaskJobs.class).purgeHistoryNow()).isEqualTo(2);
                assertThat(logged(context)).doesNotContainAnyElementsOf(old);
            }
            finally {
                jdbc(context).execute("CREATE INDEX idx_taskinfo_logs_finished ON taskinfo_logs "
                        + "(status, finished_at, execute_time)");
            }
        });
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
