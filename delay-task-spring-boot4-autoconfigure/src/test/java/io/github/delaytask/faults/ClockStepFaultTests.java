package io.github.delaytask.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.testsupport.FakeClock;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.WorkerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker JVM whose wall clock is off or steps (NTP, a virtual machine resumed), on the real Redis and
 * PostgreSQL: due-ness is decided by the Redis clock and local waits by the monotonic one, so it neither fires tasks
 * early nor stalls. The tasks come from this JVM, whose clock is right; runs are timed by the database's clock.
 */
@Tag("faults")
class ClockStepFaultTests {

    private static final int TASKS = 60;

    private TestBackend backend;

    private FaultRuns runs;

    private FakeClock clock;

    private WorkerProcess worker;

    @BeforeEach
    void createSchema() {
        this.backend = TestBackend.postgreSql();
        this.runs = new FaultRuns(this.backend);
        this.runs.createSchema("postgresql");
    }

    @AfterEach
    void stopWorkerAndDropSchema() {
        try {
            if (this.worker != null) {
                this.worker.close();
            }
            if (this.clock != null) {
                this.clock.close();
            }
        }
        finally {
            this.backend.close();
        }
    }

    @Test
    void aWorkerWhoseClockStepsBackAnHourMidRunGoesOnRunningEveryTaskWithinASecondOfItsTime() {
        startWorker(Duration.ZERO);
        List<Long> ids = addTasks();
        await().atMost(Duration.ofSeconds(20)).until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") >= 10);
        this.clock.setOffset(Duration.ofHours(-1));
        FaultRuns.Figures figures = this.runs.awaitSettled("clock-step-back", Duration.ofSeconds(30));
        this.runs.print("clock-step-back", "latest-ms=" + latestRun());
        assertThat(figures.executed()).isEqualTo(ids.size());
        assertThat(figures.duplicates()).isZero();
        assertThat(latestRun()).as("ms the latest run started after its time").isLessThan(1000);
    }

    @Test
    void aWorkerWhoseClockIsAnHourAheadRunsNoTaskBeforeItsTime() {
        startWorker(Duration.ofHours(1));
        List<Long> ids = addTasks();
        FaultRuns.Figures figures = this.runs.awaitSettled("clock-ahead", Duration.ofSeconds(30));
        long early = this.runs.count("SELECT COUNT(*) FROM fault_runs r JOIN taskinfo_logs l "
                + "ON l.task_id = r.task_id WHERE r.started_at < l.execute_time");
        this.runs.print("clock-ahead", "early=" + early + " latest-ms=" + latestRun());
        assertThat(figures.executed()).isEqualTo(ids.size());
        assertThat(early).as("runs before their time").isZero();
        assertThat(latestRun()).as("ms the latest run started after its time").isLessThan(1000);
    }

    @Test
    void tasksAWorkerAnHourBehindAddsWithADelayRunNoEarlierThanTheirDelayAfterTheAdd() {
        startWorker(Duration.ofHours(-1), DelayedAdder.TASKS + "=" + TASKS, DelayedAdder.DELAY + "=3s");
        await().atMost(Duration.ofSeconds(60))
            .until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") >= TASKS);
        // added_at is read before the add: a task is due no earlier than that plus its delay, less how well the
        // worker can tell Redis's time (its clock is behind Redis's by a round trip at most, which a busy machine
        // stretches to a few ms), and the databases's rounding; before, they ran an hour early, at once
        long early = this.runs.count("SELECT COUNT(*) FROM fault_runs r JOIN fault_adds a ON a.task_id = r.task_id "
                + "WHERE r.started_at < a.added_at + 3000 - 50");
        long latest = this.runs.count("SELECT MAX(r.started_at - a.added_at - 3000) FROM fault_runs r "
                + "JOIN fault_adds a ON a.task_id = r.task_id");
        this.runs.print("clock-behind-adds", "early=" + early + " latest-ms=" + latest);
        assertThat(this.runs.count("SELECT COUNT(*) FROM fault_adds")).isEqualTo(TASKS);
        assertThat(early).as("runs more than 50 ms before their delay was over").isZero();
        assertThat(latest).as("ms the latest run started after its add and delay").isLessThan(2000);
    }

    @Test
    void aWorkerAnHourBehindWaitsOutEveryRetrysBackOff() {
        startWorker(Duration.ofHours(-1), RecordingListener.FAIL + "=true", "delay-task.retry.max-attempts=3",
                "delay-task.retry.initial-delay=2s", "delay-task.retry.multiplier=1");
        List<Long> ids = addTasks();
        await().atMost(Duration.ofSeconds(60))
            .until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") >= 3L * ids.size());
        long shortest = this.runs.count("SELECT MIN(started_at - previous) FROM (SELECT started_at, "
                + "LAG(started_at) OVER (PARTITION BY task_id ORDER BY started_at) AS previous FROM fault_runs) runs "
                + "WHERE previous IS NOT NULL");
        this.runs.print("clock-behind-retries", "shortest-gap-ms=" + shortest);
        // a retry is due 2 s after its failure, which comes after its run's start; the database's clock rounds
        assertThat(shortest).as("ms between a failed run and its retry").isGreaterThanOrEqualTo(1990);
    }

    @Test
    void aWorkerWhoseClockStepsBackAnHourMidRunWaitsOutEveryRetrysBackOff() {
        startWorker(Duration.ZERO, RecordingListener.FAIL + "=true", "delay-task.retry.max-attempts=3",
                "delay-task.retry.initial-delay=2s", "delay-task.retry.multiplier=1");
        List<Long> ids = addTasks();
        await().atMost(Duration.ofSeconds(20)).until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") >= 1);
        // an NTP step between two of the worker's readings of Redis's time (every 30 s): before, the back-offs
        // computed until the next reading were an hour short, and the retries ran at once
        this.clock.setOffset(Duration.ofHours(-1));
        await().atMost(Duration.ofSeconds(60))
            .until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") >= 3L * ids.size());
        long shortest = this.runs.count("SELECT MIN(started_at - previous) FROM (SELECT started_at, "
                + "LAG(started_at) OVER (PARTITION BY task_id ORDER BY started_at) AS previous FROM fault_runs) runs "
                + "WHERE previous IS NOT NULL");
        this.runs.print("clock-step-retries", "shortest-gap-ms=" + shortest);
        assertThat(shortest).as("ms between a failed run and its retry").isGreaterThanOrEqualTo(1990);
    }

    private void startWorker(Duration offset, String... overrides) {
        this.clock = FakeClock.offsetBy(offset);
        Map<String, String> properties = FaultApp.properties(this.backend, overrides);
        this.worker = FaultApp.startWorker("clock", properties, this.clock.environment());
        this.worker.awaitOutput(FaultApp.READY, Duration.ofSeconds(60));
    }

    /** Tasks due one every 100 ms from 2 s on, added here, where no listener runs. */
    private List<Long> addTasks() {
        List<Long> ids = new ArrayList<>();
        FaultApp.runner(FaultApp.properties(this.backend, "delay-task.listener.enabled=false")).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Instant first = Instant.now().plusSeconds(2);
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                tasks.add(DelayTask.builder(RecordingListener.TASK_TYPE).executeAt(first.plusMillis(i * 100L)).build());
            }
            ids.addAll(service.addTasks(tasks));
        });
        return ids;
    }

    /** How long after its time the latest run started, in ms. */
    private long latestRun() {
        return this.runs.count("SELECT COALESCE(MAX(r.started_at - l.execute_time), 0) FROM fault_runs r "
                + "JOIN taskinfo_logs l ON l.task_id = r.task_id");
    }

}
