package io.github.delaytask.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.WorkerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code kill -9} of a worker JVM while its handlers run, on the real Redis and PostgreSQL: the other worker runs
 * every task the dead one left, once its lease is over, and only the tasks it was running can run twice.
 */
@Tag("faults")
class WorkerKillFaultTests {

    private static final int TASKS = 2000;

    private static final int CONCURRENCY = 8;


    private static final int PREFETCH = 8;

    /** Short handlers: many finish, and are acknowledged, every second, so the kill catches some in between. */
    private static final int HANDLER_MILLIS = 20;

    private static final Duration LEASE = Duration.ofSeconds(3);

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
    void tasksOfAKilledWorkerRunOnTheSurvivorAfterTheLeaseAndOnlyThoseItWasRunningRunTwice() {
        Map<String, String> properties = FaultApp.properties(this.backend,
                "delay-task.lease=" + LEASE.toMillis() + "ms", "delay-task.listener.concurrency=" + CONCURRENCY,
                "delay-task.listener.prefetch=" + PREFETCH,
                RecordingListener.HANDLER_MILLIS + "=" + HANDLER_MILLIS);
        WorkerProcess victim = start("victim", properties);
        WorkerProcess survivor = start("survivor", properties);
        FaultApp.runner(properties).withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            victim.awaitOutput(FaultApp.READY, Duration.ofSeconds(60));
            survivor.awaitOutput(FaultApp.READY, Duration.ofSeconds(60));
            DelayTaskService service = context.getBean(DelayTaskService.class);
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                tasks.add(DelayTask.builder(RecordingListener.TASK_TYPE).build());
            }
            service.addTasks(tasks);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> this.runs.runsBy("victim") >= TASKS / 10);
            victim.kill();
            long killedAt = System.currentTimeMillis();
            // statements the victim sent before it died may still land: wait until its sessions are gone
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> this.runs
                .count("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ?", "victim") == 0);
            // the dead worker's leases keep these from the survivor for now, so this is what it was running
            Set<Long> runningAtKill = this.runs.startedButUnfinished("victim");

            FaultRuns.Figures figures = this.runs.awaitSettled("kill-9-worker", Duration.ofSeconds(60));
            Set<Long> duplicated = this.runs.duplicated();
            this.runs.print("kill-9-worker", "running-at-kill=" + runningAtKill.size() + " concurrency=" + CONCURRENCY
                    + " prefetch=" + PREFETCH);
            assertThat(figures.tasks()).isEqualTo(TASKS);
            assertThat(figures.lost()).as("lost").isZero();
            assertThat(figures.executed()).isEqualTo(TASKS);
            assertThat(this.runs.count("SELECT COUNT(*) FROM taskinfo")).isZero();
            assertThat(duplicated).as("only tasks the victim was running run twice").isNotEmpty()
                .isSubsetOf(runningAtKill);
            // no more than it may hold at once (threads plus prefetch), even though acknowledgements are batched on a
            // thread of their own
            assertThat(duplicated).as("tasks run twice").hasSizeLessThanOrEqualTo(CONCURRENCY + PREFETCH);
            for (Long taskId : duplicated) {
                List<FaultRuns.Run> taskRuns = this.runs.runsOf(taskId);
                assertThat(taskRuns).extracting(FaultRuns.Run::worker).containsExactly("victim", "survivor");
                long rerunAt = taskRuns.get(1).startedAt();
                assertThat(rerunAt).as("rerun of %s after the kill", taskId).isGreaterThanOrEqualTo(killedAt);
                // the lease started when the victim claimed the task, a little before its handler started
                assertThat(rerunAt - taskRuns.get(0).startedAt()).as("rerun of %s after the lease", taskId)
                    .isGreaterThanOrEqualTo(LEASE.toMillis() - 1500);
            }
        });
    }

    private WorkerProcess start(String workerId, Map<String, String> properties) {
        Map<String, String> named = new LinkedHashMap<>(properties);
        // names its PostgreSQL sessions, so that the test can tell when the last of them is gone
        named.put("spring.datasource.hikari.data-source-properties.ApplicationName", workerId);
        WorkerProcess worker = FaultApp.startWorker(workerId, named);
        this.workers.add(worker);
        return worker;
    }

}
