package io.github.delaytask.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 1,000 cancels racing the dispatch of the same 1,000 tasks, on the real Redis and each real database: every task
 * ends either executed with one run or cancelled with none, and its cancel says which.
 */
@Tag("faults")
class CancelDispatchRaceFaultTests {

    private static final int TASKS = 1000;

    private static final int THREADS = 8;

    private TestBackend backend;

    @AfterEach
    void dropDatabase() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "postgresql", "mysql" })
    void everyTaskEndsExecutedOnceOrCancelledNeverRunWhenCancelsRaceTheDispatch(String platform) {
        this.backend = platform.equals("mysql") ? TestBackend.mariaDb() : TestBackend.postgreSql();
        FaultRuns runs = new FaultRuns(this.backend);
        runs.createSchema(platform);
        Map<String, String> properties = FaultApp.properties(this.backend,
                "delay-task.listener.concurrency=" + THREADS);
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Instant dueAt = Instant.now().plusSeconds(1);
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                tasks.add(DelayTask.builder(RecordingListener.TASK_TYPE).executeAt(dueAt).build());
            }
            List<Long> ids = new ArrayList<>(service.addTasks(tasks));
            Collections.shuffle(ids);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10))
                .until(() -> runs.count("SELECT COUNT(*) FROM fault_runs") > 0);
            Map<Long, Boolean> cancelled = new ConcurrentHashMap<>();
            inParallel(TASKS, (i) -> cancelled.put(ids.get(i), service.cancelTask(ids.get(i))));

            FaultRuns.Figures figures = runs.awaitSettled("cancel-race-" + platform, Duration.ofSeconds(60));
            long cancelsWon = cancelled.values().stream().filter((won) -> won).count();
            runs.print("cancel-race-" + platform, "cancels-won=" + cancelsWon);
            assertThat(figures.tasks()).isEqualTo(TASKS);
            assertThat(figures.lost()).as("lost").isZero();
            assertThat(figures.duplicates()).as("duplicates").isZero();
            assertThat(figures.cancelledButRan()).as("cancelled but ran").isZero();
            assertThat(figures.executed() + figures.cancelled()).isEqualTo(TASKS);
            assertThat(figures.executed()).as("executed").isPositive();
            assertThat(figures.cancelled()).as("cancelled").isPositive();
            Map<Long, TaskStatus> statuses = runs.statuses();
            Map<Long, Long> runCounts = runs.runCounts();
            for (Long id : ids) {
                TaskStatus status = statuses.get(id);
                if (status == TaskStatus.CANCELLED) {
                    assertThat(cancelled.get(id)).as("cancel of cancelled %s", id).isTrue();
                    assertThat(runCounts).as("runs of cancelled %s", id).doesNotContainKey(id);
                }
                else {
                    assertThat(status).as("status of %s", id).isEqualTo(TaskStatus.EXECUTED);
                    assertThat(cancelled.get(id)).as("cancel of executed %s", id).isFalse();
                    assertThat(runCounts.get(id)).as("runs of executed %s", id).isEqualTo(1);
                }
            }
        });
    }

    private static void inParallel(int count, IndexedAction action) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int index = i;
                results.add(pool.submit(() -> {
                    action.run(index);
                    return null;
                }));
            }
            for (Future<?> result : results) {
                result.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface IndexedAction {

        void run(int index) throws Exception;

    }

}
