package io.github.delaytask.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.VolatileRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis loses everything mid-run, by a restart without persistence or a {@code FLUSHALL}, on a Redis of the test's
 * own and the real PostgreSQL, with the default reload interval of a minute: the first claim that finds its queue's
 * loaded marker missing has the queues rebuilt from the database at once, and every pending task still runs, once,
 * within a second of its time or of the application reaching Redis again.
 */
@Tag("faults")
class RedisDataLossFaultTests {

    private static final int TASKS = 200;

    /** Tasks fall due one every this many ms, so some are pending, in Redis or beyond the window, at the loss. */
    private static final long SPACING_MILLIS = 30;

    private static final int ADDED_WHILE_DOWN = 20;

    private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(1);

    /** The promise of the README: with the default settings, a reload interval of a minute included. */
    private static final Duration BOUND = Duration.ofSeconds(1);

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
    void everyPendingTaskAndEveryTaskAddedWhileRedisWasDownRunsOnceWithinASecondWhenRedisRestartsEmpty() {
        loseRedisDataMidRun("redis-restart", TASKS + ADDED_WHILE_DOWN, (service, redis) -> {
            this.redis.stop();
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < ADDED_WHILE_DOWN; i++) {
                tasks.add(DelayTask.builder(RecordingListener.TASK_TYPE).build());
            }
            // stored in the database; the Redis write fails after spring.data.redis.timeout
            long addStarted = System.currentTimeMillis();
            List<Long> ids = service.addTasks(tasks);
            long addMillis = System.currentTimeMillis() - addStarted;
            assertThat(ids).hasSize(ADDED_WHILE_DOWN);
            // stored: still waiting, or already run from the database, which dispatches while Redis is down
            ids.forEach((id) -> assertThat(this.runs.status(id)).as("task %d", id)
                .isIn(TaskStatus.SCHEDULED, TaskStatus.EXECUTED));
            this.redis.startAgain();
            long startedAt = System.currentTimeMillis();
            // Lettuce reconnects after a delay that doubles with every failed attempt, so the application reaches
            // a restarted Redis some time after the server is up: the bound counts from then
            awaitReachable(redis);
            return "added-while-down=" + ADDED_WHILE_DOWN + " add-blocked=" + addMillis + "ms reconnected-after="
                    + (System.currentTimeMillis() - startedAt) + "ms";
        });
    }

    @Test
    void everyPendingTaskRunsOnceWithinASecondWhenRedisIsFlushedMidRun() {
        loseRedisDataMidRun("redis-flushall", TASKS, (service, redis) -> {
            this.redis.flushAll();
            return "";
        });
    }

    private void loseRedisDataMidRun(String name, int expectedTasks, Loss loss) {
        // no delay-task.* setting: the reload job runs a minute apart, so it cannot meet the bound in the recovery's
        // stead
        Map<String, String> properties = FaultApp.properties(this.backend,
                "spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=" + REDIS_TIMEOUT.toMillis());
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Instant first = Instant.now().plusMillis(500);
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                tasks.add(DelayTask.builder(RecordingListener.TASK_TYPE)
                    .executeAt(first.plusMillis(i * SPACING_MILLIS))
                    .build());
            }
            service.addTasks(tasks);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                .until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") >= 40);
            long keysBefore = this.redis.keyCount(this.backend.keyPrefix());
            long pending = this.runs.count("SELECT COUNT(*) FROM taskinfo");
            long lostAt = System.currentTimeMillis();
            String more = loss.lose(service, context.getBean(StringRedisTemplate.class));
            long backAt = System.currentTimeMillis();

            FaultRuns.Figures figures = this.runs.awaitSettled(name, Duration.ofSeconds(30));
            long runAfterLoss = this.runs.count("SELECT COUNT(*) FROM fault_runs WHERE started_at > ?", lostAt);
            long mostLate = this.runs.count("SELECT COALESCE(MAX(r.started_at - GREATEST(l.execute_time, ?)), 0) "
                    + "FROM fault_runs r JOIN taskinfo_logs l ON l.task_id = r.task_id WHERE r.started_at > ?", backAt,
                    lostAt);
            this.runs.print(name, "pending-at-loss=" + pending + " run-after-loss=" + runAfterLoss
                    + " redis-keys-before=" + keysBefore + " most-late-after-loss=" + mostLate + "ms"
                    + (more.isEmpty() ? "" : " " + more));
            assertThat(keysBefore).as("Redis held the queues").isPositive();
            assertThat(pending).as("tasks pending at the loss").isPositive();
            assertThat(runAfterLoss).as("tasks run after the loss").isPositive();
            assertThat(figures.tasks()).isEqualTo(expectedTasks);
            assertThat(figures.lost()).as("lost").isZero();
            assertThat(figures.duplicates()).as("duplicates").isZero();
            assertThat(figures.executed()).isEqualTo(expectedTasks);
            assertThat(this.runs.count("SELECT COUNT(*) FROM fault_runs r JOIN taskinfo_logs l "
                    + "ON l.task_id = r.task_id WHERE r.started_at < l.execute_time")).as("runs before their time")
                .isZero();
            // the README's promise: within a second of their time, or of the application reaching Redis again
            assertThat(this.runs.count("SELECT COUNT(*) FROM fault_runs r JOIN taskinfo_logs l ON l.task_id = r.task_id "
                    + "WHERE r.started_at > GREATEST(l.execute_time, ?) + ?", backAt, BOUND.toMillis()))
                .as("runs later than %d ms after their time or Redis being back", BOUND.toMillis())
                .isZero();
        });
    }

    /** Wait until the application's own connection reaches Redis: a command sent now waits for the reconnection. */
    private static void awaitReachable(StringRedisTemplate redis) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).ignoreExceptions()
            .until(() -> "PONG".equals(redis.execute((RedisCallback<String>) RedisConnection::ping)));
    }

    /** Makes Redis lose its data, and says how. */
    @FunctionalInterface
    private interface Loss {

        String lose(DelayTaskService service, StringRedisTemplate redis);

    }

}
