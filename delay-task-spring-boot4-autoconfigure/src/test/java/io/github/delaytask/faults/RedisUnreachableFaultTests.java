package io.github.delaytask.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.VolatileRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis of the test's own stopped, with Boot's default command timeout of a minute, and the real PostgreSQL: the
 * commit is what makes a task durable, so addTask waits for Redis no longer than the starter's own bound. Each task is
 * committed when addTask returns; the database's dispatch may already run the earliest ones while Redis is down (it
 * covers the queues Redis cannot serve), and the rest run once Redis is back, well before the next reload.
 */
@Tag("faults")
class RedisUnreachableFaultTests {

    private static final int ADDS = 10;

    private TestBackend backend;

    private FaultRuns runs;

    private VolatileRedis redis;

    @BeforeEach
    void startRedisAndCreateSchema() {
        this.backend = TestBackend.postgreSql();
        this.runs = new FaultRuns(this.backend);
        this.runs.createSchema("postgresql");
        this.redis = VolatileRedis.start();
    }

    @AfterEach
    void stopRedisAndDropSchema() {
        try {
            this.redis.close();
        }
        finally {
            this.backend.close();
        }
    }

    @Test
    void addTaskWaitsForAStoppedRedisNoLongerThanTheHandOffBoundAndEachOfItsTasksRunsOnce() {
        // no spring.data.redis.timeout: Boot's default, a minute; a reload far away, so only the hand-off counts
        Map<String, String> properties = FaultApp.properties(this.backend,
                "spring.data.redis.port=" + this.redis.port(), "delay-task.reload-interval=10m",
                "delay-task.preload-window=20m");
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") == 1);
            this.redis.stop();
            List<Long> ids = new ArrayList<>();
            List<Long> millis = new ArrayList<>();
            for (int i = 0; i < ADDS; i++) {
                long start = System.nanoTime();
                ids.add(service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE).delay(Duration.ofSeconds(1))
                    .build()));
                millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
            // committed: waiting, or already run by the database's dispatch while Redis is down
            ids.forEach((id) -> assertThat(this.runs.status(id)).isIn(TaskStatus.SCHEDULED, TaskStatus.EXECUTED));
            this.redis.startAgain();
            long backAt = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(45)).until(() -> this.runs.count(
                    "SELECT COUNT(*) FROM taskinfo_logs WHERE status = ?", TaskStatus.EXECUTED.code()) == ADDS + 1);
            long lateness = System.currentTimeMillis() - backAt;
            System.out.println("fault: redis-stopped-during-adds tasks=" + ADDS + " lost=0 duplicates="
                    + this.runs.duplicated().size() + " add-ms=" + millis + " all-ran-after-restart-ms=" + lateness);
            assertThat(millis.get(0)).as("ms of the first add while Redis is down").isLessThan(3000);
            assertThat(millis.stream().mapToLong(Long::longValue).sum()).as("ms of all %d adds", ADDS)
                .isLessThan(5000);
            assertThat(this.runs.duplicated()).isEmpty();
        });
    }

}
