package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.Pauses;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.health.DelayTaskHealth;
import io.github.delaytask.health.HealthReport;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.mybatis.JdbcDistributedLocks;
import io.github.delaytask.testsupport.TaskStoreInterceptor;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter without Redis ({@code delay-task.redis.enabled=false}, or no Redis connection in the application): the
 * database alone dispatches every queue, at the poll interval of {@code delay-task.database-dispatch}. Subclasses
 * pick the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRedisFreeTests {

    static final int RECORDED = 1;

    static final int FLAKY = 2;

    static final int NO_LISTENER = 9;

    /** The poll interval these tests run at; tasks fire within it, and a margin for a busy host. */
    private static final long POLL_MILLIS = 200;

    private TestBackend backend;

    /** An application with no Redis connection at all. */
    private ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
        this.runner = this.backend.applicationRunnerWithoutRedis()
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.retry.initial-delay=100ms", "delay-task.retry.max-attempts=3",
                    "delay-task.database-dispatch.poll-interval=" + POLL_MILLIS + "ms");
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @BeforeEach
    void clean() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            jdbc.update("DELETE FROM taskinfo");
            jdbc.update("DELETE FROM taskinfo_logs");
            jdbc.update("DELETE FROM taskinfo_queue");
        });
    }

    @Test
    void withoutARedisConnectionATaskRunsOnItsListenerAtItsTimeFromTheDatabase() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(StringRedisTemplate.class);
            DelayTask task = DelayTask.builder(RECORDED).delay(Duration.ofMillis(500)).parameters("hi").build();
            long id = context.getBean(DelayTaskService.class).addTask(task);
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(id));
            await().atMost(Duration.ofSeconds(5)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            assertThat(listeners.runs.get(id)).hasSize(1);
            // never early; late by the poll interval at most, and a margin for a busy host
            assertThat(listeners.runs.get(id).get(0)).isBetween(task.getExecuteTime(),
                    task.getExecuteTime() + POLL_MILLIS + 1000);
            assertThat(listeners.received.get(id).getParametersAsString()).isEqualTo("hi");
        });
    }

    @Test
    void redisTurnedOffIsNeitherWrittenNorNeededThoughTheApplicationHasIt() {
        this.backend.applicationRunner()
            .withConfiguration(AutoConfigurations.of(DelayTaskLockAutoConfiguration.class))
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.redis.enabled=false",
                    "delay-task.database-dispatch.poll-interval=" + POLL_MILLIS + "ms")
            .run((context) -> {
                assertThat(context).hasNotFailed().hasSingleBean(StringRedisTemplate.class);
                DelayTaskService service = context.getBean(DelayTaskService.class);
                long now = service.addTask(DelayTask.builder(RECORDED).build());
                long later = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(300)).build());
                service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofMinutes(1)).build());
                Listeners listeners = context.getBean(Listeners.class);
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> listeners.runs.containsKey(now) && listeners.runs.containsKey(later));
                assertThat(context.getBean(DistributedLocks.class)).isInstanceOf(JdbcDistributedLocks.class);
                assertThat(this.backend.redisKeys()).as("keys under the test's prefix").isEmpty();
            });
    }

    @Test
    void aFailingHandlerIsRetriedWithBackOffAndOneFailingEveryAttemptEndsDead() {
        this.runner.run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            DelayTaskService service = context.getBean(DelayTaskService.class);
            listeners.failuresLeft.set(1);
            long recovers = service.addTask(DelayTask.builder(FLAKY).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> status(context, recovers) == TaskStatus.EXECUTED);
            assertThat(count(context, "SELECT attempts FROM taskinfo_logs WHERE task_id = " + recovers)).isEqualTo(2);

            listeners.failuresLeft.set(100);
            long dies = service.addTask(DelayTask.builder(FLAKY).build());
            await().atMost(Duration.ofSeconds(15)).until(() -> status(context, dies) == TaskStatus.DEAD);
            assertThat(count(context, "SELECT attempts FROM taskinfo_logs WHERE task_id = " + dies)).isEqualTo(3);
            assertThat(new JdbcTemplate(context.getBean(DataSource.class))
                .queryForObject("SELECT last_error FROM taskinfo_logs WHERE task_id = " + dies, String.class))
                .contains("flaky failure");
        });
    }

    @Test
    void aCancelledTaskNeverRunsARescheduledOneRunsAtItsNewTimeAndABusinessKeyHasOneLiveTask() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            long cancelled = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(600)).build());
            long moved = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMinutes(10)).build());
            long keyed = service.addTask(DelayTask.builder(RECORDED).bizKey("order:1:timeout")
                .delay(Duration.ofMillis(600)).build());
            assertThat(service.addTask(DelayTask.builder(RECORDED).bizKey("order:1:timeout").build()))
                .as("the live task of the key").isEqualTo(keyed);
            assertThat(service.cancelTask(cancelled)).isTrue();
            long newTime = System.currentTimeMillis() + 500;
            assertThat(service.rescheduleTask(moved, Instant.ofEpochMilli(newTime))).isTrue();
            await().atMost(Duration.ofSeconds(10))
                .until(() -> listeners.runs.containsKey(moved) && listeners.runs.containsKey(keyed));
            assertThat(listeners.runs.get(moved).get(0)).isGreaterThanOrEqualTo(newTime);
            // the cancelled task was due before the others ran
            assertThat(listeners.runs).doesNotContainKey(cancelled);
            assertThat(status(context, cancelled)).isEqualTo(TaskStatus.CANCELLED);
        });
    }

    @Test
    void aTaskOfATypeWithoutListenerIsPolled() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(NO_LISTENER).parameters("polled").build());
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                DelayTask polled = service.poll(NO_LISTENER, 0);
                return polled != null && polled.getTaskId() == id;
            });
            assertThat(status(context, id)).isEqualTo(TaskStatus.EXECUTED);
        });
    }

    @Test
    void aTaskTakenButNotFinishedWithinItsLeaseIsDeliveredAgain() {
        long[] taken = new long[2];
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.lease=1s").run((context) -> {
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(RECORDED).build());
            // a consumer takes the task and dies before its handler starts
            Claims.Batch batch = context.getBean(Claims.class).claim(new QueueId(RECORDED, 0), 1);
            assertThat(batch.tasks()).extracting(StoredTask::taskId).containsExactly(id);
            taken[0] = id;
            taken[1] = System.currentTimeMillis();
        });
        this.runner.withPropertyValues("delay-task.lease=1s").run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(taken[0]));
            assertThat(listeners.runs.get(taken[0]).get(0)).isGreaterThanOrEqualTo(taken[1] + 900);
            await().atMost(Duration.ofSeconds(5)).until(() -> status(context, taken[0]) == TaskStatus.EXECUTED);
        });
    }

    @Test
    void aTaskAddedOnAnotherInstanceIsFoundByTheNextLookWithinThePollInterval() {
        this.runner.run((consumer) -> this.runner.withPropertyValues("delay-task.listener.enabled=false")
            .run((producer) -> {
                Listeners listeners = consumer.getBean(Listeners.class);
                // the consumer's queue is idle: nothing wakes it but its next look
                DelayTask task = DelayTask.builder(RECORDED).taskId(4242L).delay(Duration.ofMillis(300)).build();
                producer.getBean(DelayTaskService.class).addTask(task);
                await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(4242L));
                assertThat(listeners.runs.get(4242L).get(0)).isBetween(task.getExecuteTime(),
                        task.getExecuteTime() + POLL_MILLIS + 1000);
            }));
    }

    @Test
    void anIdleInstanceLooksAtTheDatabaseAtItsPollIntervalNotAtTheListenersFasterOne() {
        // a listener poll of 20 ms, which an instance with Redis would look at an empty queue by
        this.runner.withUserConfiguration(ClaimTimes.class)
            .withPropertyValues("delay-task.listener.poll-interval=20ms",
                    "delay-task.database-dispatch.poll-interval=500ms")
            .run((context) -> {
                List<Long> claims = context.getBean(ClaimTimes.class).nanos;
                // past the looks of the start-up
                await().atMost(Duration.ofSeconds(10)).until(() -> claims.size() >= 3);
                int from = claims.size();
                await().atMost(Duration.ofSeconds(20)).until(() -> claims.size() >= from + 4);
                long millis = TimeUnit.NANOSECONDS.toMillis(claims.get(from + 3) - claims.get(from - 1));
                // four looks: about 2 s at the database's interval, 80 ms at the listener's
                assertThat(millis).as("ms of four looks at the idle queues").isGreaterThan(1200);
            });
    }

    @Test
    void twoInstancesOnOneDatabaseRunEachTaskOnce() {
        this.runner.run((first) -> this.runner.run((second) -> {
            // ids of the test's own: two instances in one JVM would generate the same ones, two processes do not
            List<Long> ids = new ArrayList<>();
            for (long i = 1; i <= 200; i++) {
                DelayTaskService service = ((i % 2) == 0 ? first : second).getBean(DelayTaskService.class);
                ids.add(service.addTask(DelayTask.builder(RECORDED).taskId(i).delay(Duration.ofMillis(i * 5)).build()));
            }
            Map<Long, List<Long>> firstRuns = first.getBean(Listeners.class).runs;
            Map<Long, List<Long>> secondRuns = second.getBean(Listeners.class).runs;
            await().atMost(Duration.ofSeconds(30))
                .until(() -> ids.stream().allMatch((id) -> firstRuns.containsKey(id) || secondRuns.containsKey(id)));
            await().atMost(Duration.ofSeconds(10)).until(() -> count(first,
                    "SELECT COUNT(*) FROM taskinfo_logs WHERE status = " + TaskStatus.EXECUTED.code()) == 200);
            ids.forEach((id) -> assertThat(firstRuns.getOrDefault(id, List.of()).size()
                    + secondRuns.getOrDefault(id, List.of()).size()).as("runs of task %d", id).isOne());
            assertThat(firstRuns).as("the first instance's runs").isNotEmpty();
            assertThat(secondRuns).as("the second instance's runs").isNotEmpty();
        }));
    }

    @Test
    void aQueuePausedOnAnotherInstanceRunsNoTaskUntilItIsResumed() {
        this.runner.run((consumer) -> this.runner.withPropertyValues("delay-task.listener.enabled=false")
            .run((operator) -> {
                DelayTaskService service = operator.getBean(DelayTaskService.class);
                assertThat(service.pauseQueue(RECORDED, 0)).isTrue();
                assertThat(service.pauseQueue(RECORDED, 0)).as("paused already").isFalse();
                assertThat(consumer.getBean(DelayTaskService.class).isQueuePaused(RECORDED, 0)).isTrue();
                assertThat(service.isQueuePaused(FLAKY, 0)).as("another queue").isFalse();
                // the consumer reads the pauses at its next look, within a poll interval
                QueueId queue = new QueueId(RECORDED, 0);
                await().atMost(Duration.ofSeconds(5)).until(() -> consumer.getBean(Pauses.class).knownPaused(queue));
                long id = service.addTask(DelayTask.builder(RECORDED).build());
                Listeners listeners = consumer.getBean(Listeners.class);
                // several looks go by without the task running
                await().during(Duration.ofMillis(POLL_MILLIS * 5)).atMost(Duration.ofSeconds(5))
                    .until(() -> !listeners.runs.containsKey(id));
                assertThat(service.resumeQueue(RECORDED, 0)).isTrue();
                assertThat(service.resumeQueue(RECORDED, 0)).as("resumed already").isFalse();
                await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(id));
            }));
    }

    @Test
    void aListenerWithAClusterWideLimitIsRefusedAtStartUp() {
        this.backend.applicationRunnerWithoutRedis().withUserConfiguration(LimitedListener.class).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("LimitedListener.limited")
                .hasMessageContaining("clusterConcurrency")
                .hasMessageContaining("delay-task.redis.enabled=false");
        });
    }

    @Test
    void theHealthProbesTheDatabaseAloneAndSaysEveryQueueIsDispatchedFromIt() {
        this.runner.withConfiguration(AutoConfigurations.of(DelayTaskHealthContributorAutoConfiguration.class))
            .run((context) -> {
                HealthReport report = context.getBean(DelayTaskHealth.class).check();
                assertThat(report.status()).isEqualTo(HealthReport.Status.UP);
                assertThat(report.details()).containsKey("database").doesNotContainKey("redis");
                assertThat(report.details().get("dispatch")).isEqualTo(Map.of("from", "database"));
            });
    }

    private TaskStatus status(AssertableApplicationContext context, long id) {
        Integer code = new JdbcTemplate(context.getBean(DataSource.class))
            .queryForObject("SELECT status FROM taskinfo_logs WHERE task_id = ?", Integer.class, id);
        return TaskStatus.fromCode(code);
    }

    private long count(AssertableApplicationContext context, String sql) {
        Long value = new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(sql, Long.class);
        return (value != null) ? value : 0;
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final Map<Long, List<Long>> runs = new ConcurrentHashMap<>();

        final Map<Long, DelayTask> received = new ConcurrentHashMap<>();

        final AtomicInteger failuresLeft = new AtomicInteger();

        @DelayTaskListener(taskType = RECORDED)
        void record(DelayTask task) {
            this.runs.computeIfAbsent(task.getTaskId(), (id) -> new CopyOnWriteArrayList<>())
                .add(System.currentTimeMillis());
            this.received.put(task.getTaskId(), task);
        }

        @DelayTaskListener(taskType = FLAKY)
        void flaky(DelayTask task) {
            if (this.failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("flaky failure");
            }
        }

    }

    /** When the database's claims of queues ran, nanos of {@link System#nanoTime()}. */
    @Configuration(proxyBeanMethods = false)
    static class ClaimTimes {

        final List<Long> nanos = new CopyOnWriteArrayList<>();

        @Bean
        static BeanPostProcessor claimTimesOfTheStore(ObjectProvider<ClaimTimes> times) {
            return new TaskStoreInterceptor() {

                @Override
                protected Object intercept(String method, Object[] args, Call store) throws Throwable {
                    if (method.equals("claimDueInQueues")) {
                        times.getObject().nanos.add(System.nanoTime());
                    }
                    return store.proceed();
                }

            };
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class LimitedListener {

        @DelayTaskListener(taskType = RECORDED, clusterConcurrency = "2")
        void limited(DelayTask task) {
        }

    }

}
