package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up check of a schema the starter did not create, on the real Redis and MariaDB of 127.0.0.1; and what
 * InnoDB and the statements' index hints make particular there.
 */
@Tag("real-services")
class MariaDbSchemaValidationTests extends AbstractSchemaValidationTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.mariaDb();
    }

    @Test
    void anIndexOfTheLeadingColumnsAloneServesAsInnoDbAppendsThePrimaryKeyToIt() {
        try {
            this.backend.execute(dropIndex("idx_taskinfo_execute_time", "taskinfo"),
                    "CREATE INDEX dba_taskinfo_due ON taskinfo (execute_time)");
            this.runner.run((context) -> assertThat(context).hasNotFailed());
        }
        finally {
            this.backend.execute(dropIndex("dba_taskinfo_due", "taskinfo"),
                    "CREATE INDEX idx_taskinfo_execute_time ON taskinfo (execute_time, task_id)");
        }
    }

    @Test
    void thePurgesIndexMustHaveItsNameWhichThePurgeNamesInAHint() {
        try {
            this.backend.execute(dropIndex("idx_taskinfo_logs_finished", "taskinfo_logs"),
                    "CREATE INDEX dba_logs_finished ON taskinfo_logs (status, finished_at, execute_time)");
            this.runner.run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("an index on taskinfo_logs (status, finished_at, execute_time)")
                    .hasMessageContaining("CREATE INDEX idx_taskinfo_logs_finished");
            });
        }
        finally {
            this.backend.execute(dropIndex("dba_logs_finished", "taskinfo_logs"),
                    "CREATE INDEX idx_taskinfo_logs_finished ON taskinfo_logs (status, finished_at, execute_time)");
        }
    }

}
