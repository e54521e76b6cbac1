package io.github.delaytask.autoconfigure;

import java.time.Duration;

import io.github.delaytask.DelayTaskException;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The start-up check of a schema the starter did not create ({@code delay-task.jdbc.validate-schema}), against one
 * database: every missing table, column and index is named with the statement that adds it, an index is known by its
 * columns whatever its name, and the check can be turned off. Subclasses pick the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractSchemaValidationTests {

    TestBackend backend;

    ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
        // the starter's own script makes the schema once; the tests then start as a DBA-made schema would
        this.backend.applicationRunner()
            .withPropertyValues("delay-task.jdbc.initialize-schema=always", "delay-task.listener.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed());
        this.runner = this.backend.applicationRunner()
            .withPropertyValues("delay-task.jdbc.initialize-schema=never", "delay-task.listener.enabled=false");
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @Test
    void theSchemaOfTheStartersScriptPassesTheCheck() {
        this.runner.run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void aSchemaWithoutTheSchedulesTableStartsAndItsScheduleCallsSaySoUnlessTheApplicationDeclaresSchedules() {
        try {
            this.backend.execute("DROP TABLE taskinfo_schedule");
            this.runner.run((context) -> {
                assertThat(context).hasNotFailed();
                assertThatExceptionOfType(DelayTaskException.class)
                    .isThrownBy(() -> context.getBean(DelayTaskService.class)
                        .saveSchedule(TaskSchedule.every("nightly", Duration.ofHours(1)).build()))
                    .withMessageContaining("the delay-task schema lacks the table taskinfo_schedule");
            });
            this.runner.withBean(TaskSchedule.class, () -> TaskSchedule.every("nightly", Duration.ofHours(1)).build())
                .run((context) -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("declares recurring schedules [nightly]")
                        .hasMessageContaining("lacks the table taskinfo_schedule");
                });
        }
        finally {
            this.backend.applicationRunner()
                .withPropertyValues("delay-task.jdbc.initialize-schema=always", "delay-task.listener.enabled=false")
                .run((context) -> assertThat(context).hasNotFailed());
        }
    }

    @Test
    void aSchemaThatLacksAColumnAndAnIndexFailsStartUpNamingEachWithTheStatementThatAddsIt() {
        try {
            this.backend.execute("ALTER TABLE taskinfo DROP COLUMN lease_until",
                    dropIndex("idx_taskinfo_logs_status", "taskinfo_logs"));
            this.runner.run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("The delay-task schema lacks column taskinfo.lease_until; an index on "
                            + "taskinfo_logs (status, task_id)")
                    .hasMessageContaining("CREATE INDEX idx_taskinfo_logs_status ON taskinfo_logs (status, task_id)")
                    .hasMessageContaining("delay-task.jdbc.validate-schema=false");
            });
            this.runner.withPropertyValues("delay-task.jdbc.validate-schema=false")
                .run((context) -> assertThat(context).hasNotFailed());
        }
        finally {
            this.backend.execute("ALTER TABLE taskinfo ADD COLUMN lease_until BIGINT NULL",
                    "CREATE INDEX idx_taskinfo_logs_status ON taskinfo_logs (status, task_id)");
        }
    }

    @Test
    void anIndexOfAnotherNameThatBeginsWithTheColumnsServes() {
        try {
            this.backend.execute(dropIndex("idx_taskinfo_execute_time", "taskinfo"),
                    "CREATE INDEX dba_taskinfo_due ON taskinfo (execute_time, task_id, priority)");
            this.runner.run((context) -> assertThat(context).hasNotFailed());
        }
        finally {
            this.backend.execute(dropIndex("dba_taskinfo_due", "taskinfo"),
                    "CREATE INDEX idx_taskinfo_execute_time ON taskinfo (execute_time, task_id)");
        }
    }

    String dropIndex(String index, String table) {
        return this.backend.jdbcUrl().startsWith("jdbc:mariadb:") ? "DROP INDEX " + index + " ON " + table
                : "DROP INDEX " + index;
    }

}
