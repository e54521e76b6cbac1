package io.github.delaytask.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.WorkerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three worker JVMs sharing one Redis and one database consume 10,000 tasks: each task runs exactly once.
 */
@Tag("faults")
class ThreeWorkersFaultTests {

    private static final int TASKS = 10_000;

    private static final int BATCH = 500;

    private static final List<String> WORKER_IDS = List.of("worker-1", "worker-2", "worker-3");

    private TestBackend backend;

    private FaultRuns runs;

    private final List<WorkerProcess> workers = new ArrayList<>();

    @BeforeEach
    void createSchema() {
        this.backend = TestBackend.postgreSql();
        this.runs = new FaultRuns(this.backend);
        this.runs.createSchema("postgresql");
    }

    @AfterEach
    void stopWorkersAndDropSchema() {
        this.workers.forEach(WorkerProcess::close);
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @Test
    void threeWorkersRunEachOfTenThousandTasksExactlyOnce() {
        Map<String, String> properties = FaultApp.properties(this.backend);
        WORKER_IDS.forEach((id) -> this.workers.add(FaultApp.startWorker(id, properties)));
        FaultApp.runner(properties).withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            this.workers.forEach((worker) -> worker.awaitOutput(FaultApp.READY, Duration.ofSeconds(60)));
            long startedAt = System.currentTimeMillis();
            addTasks(context.getBean(DelayTaskService.class));
            long addedAt = System.currentTimeMillis();

            FaultRuns.Figures figures = this.runs.awaitSettled("three-workers", Duration.ofSeconds(120));
            long doneAt = System.currentTimeMillis();
            Map<String, Long> perWorker = this.runs.runsPerWorker();
            this.runs.print("three-workers", "added-in=" + (addedAt - startedAt) + "ms all-executed-in="
                    + (doneAt - startedAt) + "ms");
            assertThat(figures.tasks()).isEqualTo(TASKS);
            assertThat(figures.lost()).as("lost").isZero();
            assertThat(figures.duplicates()).as("duplicates").isZero();
            assertThat(figures.executed()).isEqualTo(TASKS);
            assertThat(this.runs.count("SELECT COUNT(*) FROM fault_runs")).isEqualTo(TASKS);
            assertThat(perWorker).as("every worker took a share").containsOnlyKeys(WORKER_IDS)
                .allSatisfy((worker, count) -> assertThat(count).isPositive());
        });
    }

    private static void addTasks(DelayTaskService service) {
        for (int batch = 0; batch < TASKS / BATCH; batch++) {
            List<DelayTask> tasks = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                tasks.add(DelayTask.builder(RecordingListener.TASK_TYPE).build());
            }
            service.addTasks(tasks);
        }
    }

}
