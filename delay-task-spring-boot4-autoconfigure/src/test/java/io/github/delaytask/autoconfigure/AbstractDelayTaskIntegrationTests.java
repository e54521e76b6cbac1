package io.github.delaytask.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskException;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.RetryLaterException;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.DueSignals;
import io.github.delaytask.core.Outcomes;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.RetryPolicy;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.redis.RecoveryMarkers;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.WakeUps;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.testsupport.TaskStoreInterceptor;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The whole path (add, Redis, refresh, listener, status in the database) against one backend. Subclasses pick the
 * backend: embedded Redis and H2 by default, the real services in the {@code real-services} group.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractDelayTaskIntegrationTests {

    static final int RECORDED = 1;

    static final int PAYLOAD = 2;

    static final int FLAKY = 3;

    static final int RETRY_LATER = 4;

    static final int SLOW = 5;

    static final int GATED = 6;

    static final int LONG = 7;

    static final int NO_LISTENER = 9;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.retry.initial-delay=100ms", "delay-task.retry.max-attempts=3",
                    "delay-task.listener.poll-interval=50ms");
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
        });
        this.backend.deleteRedisKeys();
    }

    @Test
    void addedTaskRunsOnItsListenerAndIsMarkedExecuted() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(300)).parameters("hi").build());
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(id));
            await().atMost(Duration.ofSeconds(5)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            assertThat(listeners.runs.get(id)).hasSize(1);
            assertThat(listeners.received.get(id).getParametersAsString()).isEqualTo("hi");
            assertThat(count(context, "SELECT COUNT(*) FROM taskinfo WHERE task_id = " + id)).isZero();
            await().atMost(Duration.ofSeconds(5)).until(() -> redisSizes(context, RECORDED)[2] == 0);
        });
    }

    @Test
    void aHandlerAndAPollAreToldTheirTasksBusinessKey() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            String key = "order:" + UUID.randomUUID() + ":timeout";
            long id = service.addTask(DelayTask.builder(RECORDED).bizKey(key).build());
            long withoutKey = service.addTask(DelayTask.builder(RECORDED).build());
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10))
                .until(() -> listeners.received.containsKey(id) && listeners.received.containsKey(withoutKey));
            assertThat(listeners.received.get(id).getBizKey()).isEqualTo(key);
            assertThat(listeners.received.get(withoutKey).getBizKey()).isNull();

            String polledKey = "order:" + UUID.randomUUID() + ":polled";
            service.addTask(DelayTask.builder(NO_LISTENER).bizKey(polledKey).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                DelayTask polled = service.poll(NO_LISTENER, 0);
                return polled != null && polledKey.equals(polled.getBizKey());
            });
        });
    }

    @Test
    void aTaskAddedOnAnotherInstanceDueWithinThePollIntervalFiresOnTimeThroughItsWakeUp() {
        // the consumer looks at an idle queue once a minute: only the wake-up can have it run the task on time
        this.runner.withPropertyValues("delay-task.listener.poll-interval=60s").run((consumer) -> {
            await().atMost(Duration.ofSeconds(10)).until(consumer.getBean(WakeUps.class)::listening);
            Listeners listeners = consumer.getBean(Listeners.class);
            long first = consumer.getBean(DelayTaskService.class).addTask(DelayTask.builder(RECORDED).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(first));
            // the claim that took it found the queue empty after it: the poller sleeps for the whole interval now
            this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.listener.poll-interval=60s")
                .run((producer) -> {
                    DelayTask task = DelayTask.builder(RECORDED).delay(Duration.ofMillis(300)).build();
                    long id = producer.getBean(DelayTaskService.class).addTask(task);
                    await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(id));
                    assertThat(listeners.runs.get(id).get(0)).isBetween(task.getExecuteTime(),
                            task.getExecuteTime() + 1000);
                });
        });
    }

    @Test
    void taskRunsNoEarlierThanItsExecuteTimeAndWithinASecondOfIt() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            DelayTask task = DelayTask.builder(RECORDED).delay(Duration.ofMillis(1500)).build();
            long id = service.addTask(task);
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(id));
            long startedAt = listeners.runs.get(id).get(0);
            // the seeds' design fired up to a minute late; a generous bound, not a benchmark
            assertThat(startedAt).isBetween(task.getExecuteTime(), task.getExecuteTime() + 1000);
        });
    }

    @Test
    void aPausedQueueRunsNoTaskWhileAddsGoOnAndRunsThemOnceResumed() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            assertThat(service.pauseQueue(RECORDED, 0)).isTrue();
            assertThat(service.pauseQueue(RECORDED, 0)).as("paused already").isFalse();
            assertThat(service.isQueuePaused(RECORDED, 0)).isTrue();
            assertThat(service.isQueuePaused(PAYLOAD, 0)).as("another queue").isFalse();

            long id = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(100)).build());
            Listeners listeners = context.getBean(Listeners.class);
            // the poller's claims move the due task into the ready set, and claim nothing while the queue is paused
            await().atMost(Duration.ofSeconds(10)).until(() -> redisSizes(context, RECORDED)[1] == 1);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> !listeners.runs.containsKey(id));
            assertThat(status(context, id)).isEqualTo(TaskStatus.SCHEDULED);

            assertThat(service.resumeQueue(RECORDED, 0)).isTrue();
            assertThat(service.resumeQueue(RECORDED, 0)).as("not paused any more").isFalse();
            assertThat(service.isQueuePaused(RECORDED, 0)).isFalse();
            await().atMost(Duration.ofSeconds(10)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            assertThat(listeners.runs.get(id)).hasSize(1);
        });
    }

    @Test
    void tasksClaimedAheadDoNotStartOnceTheirQueueIsPausedAndRunOnceWhenItIsResumed() {
        this.runner.withPropertyValues("delay-task.listener.concurrency=1", "delay-task.listener.prefetch=5")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                Listeners listeners = context.getBean(Listeners.class);
                long first = service.addTask(DelayTask.builder(GATED).build());
                await().atMost(Duration.ofSeconds(5)).until(() -> listeners.gatedStarted.getCount() == 0);
                List<Long> ahead = service.addTasks(List.of(DelayTask.builder(GATED).build(),
                        DelayTask.builder(GATED).build(), DelayTask.builder(GATED).build()));
                // claimed ahead of the one thread, which the first holds
                await().atMost(Duration.ofSeconds(5)).until(() -> count(context,
                        "SELECT COUNT(*) FROM taskinfo WHERE lease_until IS NOT NULL") == 4);
                assertThat(service.pauseQueue(GATED, 0)).isTrue();
                listeners.gate.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> status(context, first) == TaskStatus.EXECUTED);
                // back, unstarted, their attempt not counted
                await().atMost(Duration.ofSeconds(5)).until(() -> count(context, "SELECT COUNT(*) FROM taskinfo WHERE "
                        + "lease_until IS NULL AND attempts = 0") == 3);
                assertThat(listeners.runs.keySet()).containsExactly(first);

                assertThat(service.resumeQueue(GATED, 0)).isTrue();
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> ahead.stream().allMatch((id) -> status(context, id) == TaskStatus.EXECUTED));
                ahead.forEach((id) -> assertThat(listeners.runs.get(id)).as("runs of task %d", id).hasSize(1));
            });
    }

    @Test
    void anIdAnotherApplicationQueuedUnderTheSharedPrefixIsLeftToItThoughATaskOfThisApplicationInAnotherQueueHasIt() {
        // explicit ids, or id generators that clash: this application's task and another's share an id
        long id = ThreadLocalRandom.current().nextLong(1L << 40, 1L << 50);
        QueueId othersQueue = new QueueId(SLOW, 0);
        this.runner.withPropertyValues("delay-task.lease=1s").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            long now = System.currentTimeMillis();
            service.addTask(DelayTask.builder(RECORDED).taskId(id).executeAt(Instant.ofEpochMilli(now + 500)).build());
            // the other application's task of that id, in a queue this one listens to as well
            context.getBean(TaskQueues.class).schedule(othersQueue, id, now);
            context.getBean(DueSignals.class).scheduled(othersQueue, now);
            await().atMost(Duration.ofSeconds(10)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            assertThat(listeners.runs.get(id)).as("runs of this application's task").hasSize(1);
            // through several leases and claims: the other's id is put off for its owner, never dropped
            await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(5))
                .until(() -> inRedis(context, othersQueue, id));
            assertThat(listeners.slowStarted.getCount()).as("runs of the other application's task here").isOne();
        });
    }

    @Test
    void aNewTasksHandOffThatReachesRedisAfterAnotherInstanceRescheduledItLeavesTheRescheduledTime() {
        // the add's caller returns at its commit, so its hand-off may reach Redis after a reschedule made elsewhere
        long id = ThreadLocalRandom.current().nextLong(1L << 40, 1L << 50);
        QueueId queue = new QueueId(NO_LISTENER, 0);
        this.runner.run((context) -> {
            TaskQueues queues = context.getBean(TaskQueues.class);
            long added = System.currentTimeMillis() + 120_000;
            long rescheduled = added - 60_000;
            queues.schedule(queue, id, rescheduled);
            assertThat(queues.addAll(Map.of(queue, Map.of(id, added)), List.of(), 1000, Duration.ofSeconds(2)))
                .as("queues not written").isEmpty();
            Double score = context.getBean(StringRedisTemplate.class)
                .opsForZSet()
                .score(queues.keyPrefix() + ":{" + NO_LISTENER + ":0}:future", Long.toString(id));
            assertThat(score).as("the task's time in Redis").isEqualTo((double) rescheduled);
            queues.changeAll(List.of(new TaskQueues.Change(queue, id, TaskQueues.Change.REMOVE)),
                    Duration.ofSeconds(2));
        });
    }

    /**
     * Whether one of the queue's sets holds the id: due later, due, or claimed. One script reads the three at once, as
     * the id moves between them (a claim, a deferral) while they are read.
     */
    private static boolean inRedis(AssertableApplicationContext context, QueueId queue, long id) {
        String keys = context.getBean(RedisKeys.class).prefix() + ":{" + queue.taskType() + ":" + queue.priority()
                + "}:";
        Long held = context.getBean(StringRedisTemplate.class)
            .execute(IN_ANY_SET, Stream.of("future", "ready", "inflight").map((set) -> keys + set).toList(),
                    Long.toString(id));
        return held != null && held == 1;
    }

    private static final RedisScript<Long> IN_ANY_SET = RedisScript.of("for i = 1, #KEYS do "
            + "if redis.call('ZSCORE', KEYS[i], ARGV[1]) then return 1 end end return 0", Long.class);

    @Test
    void aPausedQueueGivesNoTaskToPollUntilResumed() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(NO_LISTENER).build());
            service.pauseQueue(NO_LISTENER, 0);

            assertThat(service.poll(NO_LISTENER, 0)).isNull();
            assertThat(service.poll(NO_LISTENER, 0, (task) -> {
                throw new AssertionError("handed task " + task.getTaskId() + " of a paused queue");
            })).isFalse();
            assertThat(status(context, id)).isEqualTo(TaskStatus.SCHEDULED);

            service.resumeQueue(NO_LISTENER, 0);
            DelayTask polled = service.poll(NO_LISTENER, 0);
            assertThat(polled).isNotNull();
            assertThat(polled.getTaskId()).isEqualTo(id);
        });
    }

    @Test
    void taskDueInThePastRunsAtOnce() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(RECORDED)
                .executeAt(java.time.Instant.now().minus(Duration.ofHours(1))).build());
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> listeners.runs.containsKey(id));
        });
    }

    @Test
    void jsonPayloadIsReadIntoTheListenerParameterType() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(PAYLOAD).payload(new Order(42L, "UNPAID")).build());
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> !listeners.orders.isEmpty());
            assertThat(listeners.orders).containsExactly(new Order(42L, "UNPAID"));
            await().atMost(Duration.ofSeconds(5)).until(() -> status(context, id) == TaskStatus.EXECUTED);
        });
    }

    @Test
    void cancelledTaskNeverRunsWhileLaterTasksDo() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long cancelled = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(500)).build());
            long sentinel = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(1000)).build());
            assertThat(service.cancelTask(cancelled)).isTrue();
            assertThat(service.cancelTask(cancelled)).isFalse();
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(sentinel));
            assertThat(listeners.runs).doesNotContainKey(cancelled);
            assertThat(status(context, cancelled)).isEqualTo(TaskStatus.CANCELLED);
        });
    }

    @Test
    void cancelOfAnUnknownOrExecutedTaskReturnsFalse() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            assertThat(service.cancelTask(123456789L)).isFalse();
            long id = service.addTask(DelayTask.builder(RECORDED).build());
            await().atMost(Duration.ofSeconds(5)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            assertThat(service.cancelTask(id)).isFalse();
        });
    }

    @Test
    void pollTakesADueTaskOfATypeWithoutListenerAndMarksItExecuted() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long later = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofMinutes(2)).build());
            assertThat(service.poll(NO_LISTENER, 0)).isNull();
            long due = service.addTask(DelayTask.builder(NO_LISTENER).parameters("now").build());
            DelayTask polled = service.poll(NO_LISTENER, 0);
            assertThat(polled).isNotNull();
            assertThat(polled.getTaskId()).isEqualTo(due);
            assertThat(polled.getParametersAsString()).isEqualTo("now");
            assertThat(status(context, due)).isEqualTo(TaskStatus.EXECUTED);
            assertThat(service.poll(NO_LISTENER, 0)).isNull();
            assertThat(status(context, later)).isEqualTo(TaskStatus.SCHEDULED);
        });
    }

    @Test
    void taskBeyondThePreloadWindowStaysInTheDatabaseUntilTheFeedBringsItIn() {
        this.runner.withPropertyValues("delay-task.preload-window=2s", "delay-task.feed-interval=500ms")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                DelayTask task = DelayTask.builder(RECORDED).delay(Duration.ofSeconds(4)).build();
                long id = service.addTask(task);
                assertThat(redisSizes(context, RECORDED)[0]).isZero();
                Listeners listeners = context.getBean(Listeners.class);
                await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runs.containsKey(id));
                assertThat(listeners.runs.get(id).get(0)).isGreaterThanOrEqualTo(task.getExecuteTime());
            });
    }

    @Test
    void anApplicationStartedOnAnEmptyRedisRunsItsFirstTasksOnTime() {
        // a first deployment, or a Redis restarted without its data: every queue's loaded marker is missing, and the
        // first claims start a recovery; they once waited a second for it (0.74 to 1.08 s late)
        this.backend.deleteRedisKeys();
        this.runner.run((context) -> {
            long first = System.currentTimeMillis() + 500;
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                tasks.add(DelayTask.builder(RECORDED).executeAt(Instant.ofEpochMilli(first + i * 5L)).build());
            }
            List<Long> ids = context.getBean(DelayTaskService.class).addTasks(tasks);
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runs.keySet().containsAll(ids));
            for (int i = 0; i < ids.size(); i++) {
                long due = tasks.get(i).getExecuteTime();
                assertThat(listeners.runs.get(ids.get(i)).get(0)).as("start of a task due at %s", due)
                    .isBetween(due, due + 500);
            }
        });
    }

    @Test
    void pendingTasksRunAfterTheApplicationRestarts() {
        List<Long> ids = new CopyOnWriteArrayList<>();
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            for (int i = 0; i < 20; i++) {
                ids.add(service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(100)).build()));
            }
        });
        this.runner.run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.keySet().containsAll(ids));
            assertThat(ids).allSatisfy((id) -> assertThat(listeners.runs.get(id)).hasSize(1));
        });
    }

    @Test
    void tasksLostFromRedisComeBackFromTheDatabase() {
        List<Long> ids = new CopyOnWriteArrayList<>();
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            for (int i = 0; i < 10; i++) {
                ids.add(service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(200)).build()));
            }
        });
        this.backend.deleteRedisKeys();
        assertThat(this.backend.redisKeys()).isEmpty();
        this.runner.run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.keySet().containsAll(ids));
        });
    }

    @Test
    void failingHandlerIsRetriedWithBackOffThenSucceeds() {
        this.runner.run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            listeners.flakyFailures.set(1);
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(FLAKY).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            assertThat(listeners.flakyRuns.get()).isEqualTo(2);
            assertThat(count(context, "SELECT attempts FROM taskinfo_logs WHERE task_id = " + id)).isEqualTo(2);
        });
    }

    @Test
    void handlerFailingEveryAttemptLeavesTheTaskDeadWithItsError() {
        this.runner.run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            listeners.flakyFailures.set(100);
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(FLAKY).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> status(context, id) == TaskStatus.DEAD);
            assertThat(listeners.flakyRuns.get()).isEqualTo(3);
            String error = new JdbcTemplate(context.getBean(DataSource.class))
                .queryForObject("SELECT last_error FROM taskinfo_logs WHERE task_id = " + id, String.class);
            assertThat(error).contains("flaky failure");
        });
    }

    @Test
    void taskAddedInATransactionThatRollsBackLeavesNothingBehind() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
            long[] id = new long[1];
            transaction.executeWithoutResult((status) -> {
                id[0] = service.addTask(DelayTask.builder(NO_LISTENER).build());
                status.setRollbackOnly();
            });
            assertThat(count(context, "SELECT COUNT(*) FROM taskinfo_logs WHERE task_id = " + id[0])).isZero();
            assertThat(redisSizes(context, NO_LISTENER)).containsExactly(0, 0, 0);
            assertThat(service.poll(NO_LISTENER, 0)).isNull();
        });
    }

    @Test
    void addingATaskWithAnExistingIdFailsAndChangesNothing() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            service.addTask(DelayTask.builder(NO_LISTENER).taskId(77L).parameters("first").build());
            assertThatExceptionOfType(DelayTaskException.class)
                .isThrownBy(() -> service.addTask(DelayTask.builder(NO_LISTENER).taskId(77L).parameters("second").build()))
                .withMessageContaining("77");
            assertThat(service.poll(NO_LISTENER, 0).getParametersAsString()).isEqualTo("first");
        });
    }

    @Test
    void reloadIsIdempotentAndLeavesTasksInFlightAlone() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofMinutes(1)).build());
            long inFlight = service.addTask(DelayTask.builder(NO_LISTENER).build());
            Claims.Batch claimed = context.getBean(Claims.class).claim(new QueueId(NO_LISTENER, 0), 10);
            assertThat(claimed.tasks()).extracting(StoredTask::taskId).containsExactly(inFlight);
            DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);
            assertThat(jobs.reloadNow()).isEqualTo(2);
            assertThat(jobs.reloadNow()).isEqualTo(2);
            assertThat(redisSizes(context, NO_LISTENER)).as("future, ready, in flight").containsExactly(1, 0, 1);
            assertThat(service.poll(NO_LISTENER, 0)).as("the task in flight is not handed out again").isNull();
            assertThat(context.getBean(Outcomes.class).complete(claimed.tasks().get(0))).isTrue();
        });
    }

    @Test
    void aReloadTellsTheConsumersOnlyOfTasksThatRedisDidNotHold() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            TaskQueues queues = context.getBean(TaskQueues.class);
            QueueId queue = new QueueId(NO_LISTENER, 0);
            long soon = System.currentTimeMillis() + 60_000;
            service.addTask(DelayTask.builder(NO_LISTENER).executeAt(java.time.Instant.ofEpochMilli(soon)).build());
            long lostId = service
                .addTask(DelayTask.builder(NO_LISTENER).executeAt(java.time.Instant.ofEpochMilli(soon + 60_000)).build());
            // their callers returned at the commit: the hand-off follows, and the first reload must find them there
            await().atMost(Duration.ofSeconds(10)).until(() -> redisSizes(context, NO_LISTENER)[0] == 2);
            List<Long> told = new CopyOnWriteArrayList<>();
            DueSignals.Listener listener = (scheduled, executeTime) -> {
                if (scheduled.equals(queue)) {
                    told.add(executeTime);
                }
            };
            DueSignals signals = context.getBean(DueSignals.class);
            signals.addListener(listener);
            try {
                DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);
                assertThat(jobs.reloadNow()).as("both read").isEqualTo(2);
                queues.remove(queue, lostId);
                assertThat(jobs.reloadNow()).isEqualTo(2);
                // wake-ups of both reloads, if any, arrive in order: the second's being there, the first's was too
                await().atMost(Duration.ofSeconds(10)).until(() -> told.contains(soon + 60_000));
                assertThat(told).as("only the task Redis had lost, from the second reload")
                    .containsOnly(soon + 60_000);
            }
            finally {
                signals.removeListener(listener);
            }
        });
    }

    @Test
    void aQueueWithNoTasksLeftLeavesTheRegistryAndComesBackWithItsNextTask() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.reload-interval=300ms",
                "delay-task.preload-window=2s", "delay-task.refresh-interval=100ms").run((context) -> {
                    DelayTaskService service = context.getBean(DelayTaskService.class);
                    TaskQueues queues = context.getBean(TaskQueues.class);
                    QueueAdministration administration = context.getBean(QueueAdministration.class);
                    QueueId queue = new QueueId(NO_LISTENER, 0);
                    long first = service.addTask(DelayTask.builder(NO_LISTENER).build());
                    assertThat(administration.queues()).contains(queue);
                    assertThat(service.poll(NO_LISTENER, 0)).isNotNull();
                    // an old id left behind, as a reload that read the task just before it ran would leave it
                    queues.reload(queue, java.util.Map.of(first, System.currentTimeMillis()));
                    await().atMost(Duration.ofSeconds(10)).until(() -> !administration.queues().contains(queue));
                    assertThat(redisSizes(context, NO_LISTENER)).containsExactly(0, 0, 0);
                    long next = service.addTask(DelayTask.builder(NO_LISTENER).build());
                    assertThat(administration.queues()).contains(queue);
                    assertThat(service.poll(NO_LISTENER, 0).getTaskId()).isEqualTo(next);
                });
    }

    @Test
    void cancelAndDispatchOfTheSameTasksRaceToExactlyOneWinner() {
        this.runner.withPropertyValues("delay-task.listener.concurrency=4").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            long dueAt = System.currentTimeMillis() + 500;
            List<Long> ids = new java.util.ArrayList<>();
            for (int i = 0; i < 200; i++) {
                ids.add(service.addTask(DelayTask.builder(RECORDED).executeAt(java.time.Instant.ofEpochMilli(dueAt))
                    .build()));
            }
            Map<Long, Boolean> cancelled = new ConcurrentHashMap<>();
            await().atMost(Duration.ofSeconds(5)).until(() -> !listeners.runs.isEmpty());
            ids.parallelStream().forEach((id) -> cancelled.put(id, service.cancelTask(id)));
            await().atMost(Duration.ofSeconds(20)).until(() -> count(context,
                    "SELECT COUNT(*) FROM taskinfo_logs WHERE status = " + TaskStatus.SCHEDULED.code()) == 0);
            for (Long id : ids) {
                TaskStatus status = status(context, id);
                if (status == TaskStatus.CANCELLED) {
                    assertThat(cancelled.get(id)).as("cancel of %s", id).isTrue();
                    assertThat(listeners.runs).as("runs of cancelled %s", id).doesNotContainKey(id);
                }
                else {
                    assertThat(status).isEqualTo(TaskStatus.EXECUTED);
                    assertThat(cancelled.get(id)).as("cancel of %s", id).isFalse();
                    assertThat(listeners.runs.get(id)).as("runs of %s", id).hasSize(1);
                }
            }
        });
    }

    /**
     * A task's id was in Redis twice (a late hand-off of its add beside a reload's), so a second claim hands it out
     * while its handler runs; that claim loses it to the database and puts it off to the end of the lease. The
     * handler's retry, recorded between that claim's read of the database and its put-off, must keep its sooner time:
     * it ran 30 s late, a lease later.
     */
    @Test
    void aRetryRecordedWhileAnotherClaimOfTheTaskSettlesItKeepsItsTime() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false")
            .withBean(StaleReads.class)
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                Claims claims = context.getBean(Claims.class);
                Outcomes outcomes = context.getBean(Outcomes.class);
                TaskQueues queues = context.getBean(TaskQueues.class);
                RecoveryMarkers markers = context.getBean(RecoveryMarkers.class);
                QueueId queue = new QueueId(NO_LISTENER, 0);
                long id = service.addTask(DelayTask.builder(NO_LISTENER).build());
                StoredTask claimed = claims.claim(queue, 1).tasks().get(0);
                // the recovery of the queue, which the claim found never loaded, is over before the rest
                await().atMost(Duration.ofSeconds(10)).until(() -> markers.unloaded(List.of(queue)).isEmpty());
                queues.add(queue, Map.of(id, 0L));
                RetryPolicy retries = new RetryPolicy(3, Duration.ofSeconds(5), 2, Duration.ofMinutes(1));
                long[] retryAt = new long[1];
                // the handler fails and records its retry once the second claim has read the task, still leased
                context.getBean(StaleReads.class).afterRead = () -> {
                    retryAt[0] = System.currentTimeMillis();
                    outcomes.fail(claimed, new IllegalStateException("failed"), retries);
                };
                assertThat(claims.claim(queue, 1).tasks()).as("the second claim's tasks").isEmpty();
                Double score = context.getBean(StringRedisTemplate.class)
                    .opsForZSet()
                    .score(queues.keyPrefix() + ":{" + NO_LISTENER + ":0}:future", Long.toString(id));
                assertThat(score).as("the task's time in Redis").isNotNull();
                assertThat(score.longValue()).as("the retry's time, not the end of the first lease")
                    .isBetween(retryAt[0] + 4_000, retryAt[0] + 6_000);
            });
    }

    @Test
    void aBusinessTransactionThatCancelsARunningTaskHoldsUpNoOtherTasksOutcome() throws Exception {
        businessTransactionCancelsARunningTask(false);
    }

    @Test
    void aBusinessTransactionWhoseSnapshotPredatesTheClaimHoldsUpNoOtherTasksOutcome() throws Exception {
        businessTransactionCancelsARunningTask(true);
    }

    /**
     * The README's pattern: an order is paid, and its timeout task is cancelled in the same transaction, which finds
     * the task running and stays open for twice the lease while 200 other tasks run, and one that runs for three
     * times the lease. On MySQL and MariaDB, under REPEATABLE READ, the cancel keeps the locks of the rows it looked
     * at until the caller commits.
     * @param snapshotFirst whether the caller's transaction read before the task was claimed, so that the cancel
     * sees it unclaimed and tries to delete it
     */
    private void businessTransactionCancelsARunningTask(boolean snapshotFirst) throws Exception {
        this.runner.withPropertyValues("delay-task.lease=2s").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            long running = service.addTask(DelayTask.builder(GATED)
                .executeAt(java.time.Instant.now().plusMillis(snapshotFirst ? 1000 : 0))
                .build());
            // after the other in the primary key, whose order a statement that renews both locks them in
            long longRun = service.addTask(DelayTask.builder(LONG).build());
            CountDownLatch cancelled = new CountDownLatch(1);
            CountDownLatch commit = new CountDownLatch(1);
            ExecutorService caller = Executors.newSingleThreadExecutor();
            try {
                Future<Boolean> business = caller.submit(() -> transaction.execute((status) -> {
                    if (snapshotFirst) {
                        jdbc.queryForObject("SELECT COUNT(*) FROM taskinfo", Long.class);
                    }
                    try {
                        assertThat(listeners.gatedStarted.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                        boolean result = service.cancelTask(running);
                        cancelled.countDown();
                        commit.await();
                        return result;
                    }
                    catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                }));
                assertThat(cancelled.await(15, java.util.concurrent.TimeUnit.SECONDS)).as("cancelled").isTrue();
                long holdUntil = System.currentTimeMillis() + 4_000;
                // while the task still runs, others run and are recorded
                List<Long> ids = new ArrayList<>(service.addTasks(recordedTasks(200)));
                await().atMost(Duration.ofSeconds(4)).until(() -> executed(jdbc, RECORDED) == 200);
                // and it runs on for twice the lease, with the caller's transaction open: the leases of the others
                // running meanwhile are still renewed
                java.util.concurrent.TimeUnit.MILLISECONDS.sleep(Math.max(0, holdUntil - System.currentTimeMillis()));
                // its handler returns: its outcome waits for the caller, and no other does
                listeners.gate.countDown();
                ids.addAll(service.addTasks(recordedTasks(100)));
                await().atMost(Duration.ofSeconds(4)).until(() -> executed(jdbc, RECORDED) == 300);
                commit.countDown();
                assertThat(business.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("cancel of a running task")
                    .isFalse();
                await().atMost(Duration.ofSeconds(10)).until(() -> status(context, running) == TaskStatus.EXECUTED);
                ids.forEach((id) -> assertThat(listeners.runs.get(id)).as("runs of task %s", id).hasSize(1));
                assertThat(listeners.runs.get(running)).as("runs of the task the caller cancelled").hasSize(1);
                await().atMost(Duration.ofSeconds(10)).until(() -> status(context, longRun) == TaskStatus.EXECUTED);
                assertThat(listeners.runs.get(longRun)).as("runs of the task that ran for three leases").hasSize(1);
            }
            finally {
                commit.countDown();
                listeners.gate.countDown();
                caller.shutdownNow();
            }
        });
    }

    private static List<DelayTask> recordedTasks(int count) {
        List<DelayTask> tasks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            tasks.add(DelayTask.builder(RECORDED).build());
        }
        return tasks;
    }

    private static long executed(JdbcTemplate jdbc, int taskType) {
        Long count = jdbc.queryForObject("SELECT COUNT(*) FROM taskinfo_logs WHERE status = ? AND task_type = ?",
                Long.class, TaskStatus.EXECUTED.code(), taskType);
        return (count != null) ? count : 0;
    }

    @Test
    void aTaskWhoseClaimFailedInTheDatabaseRunsASecondLaterNotWhenItsLeaseRunsOut() {
        this.runner.withBean(FailingClaims.class).run((context) -> {
            FailingClaims failing = context.getBean(FailingClaims.class);
            Listeners listeners = context.getBean(Listeners.class);
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(RECORDED).build());
            // the default lease is 30 s: a task left in flight by the failed claim would run only then
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(id));
            assertThat(failing.failedIds).as("the ids of the claim that failed").contains(id);
            await().atMost(Duration.ofSeconds(5))
                .until(() -> status(context, id) == TaskStatus.EXECUTED);
            assertThat(listeners.runs.get(id)).as("runs of the task").hasSize(1);
        });
    }

    /** Fails the store's first claim, as a database blip would, and keeps the ids it was asked to claim. */
    static class FailingClaims extends TaskStoreInterceptor {

        final List<Long> failedIds = new CopyOnWriteArrayList<>();

        private final AtomicBoolean failed = new AtomicBoolean();

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            if (method.equals("claimDue") && this.failed.compareAndSet(false, true)) {
                @SuppressWarnings("unchecked")
                Collection<Long> ids = (Collection<Long>) args[0];
                this.failedIds.addAll(ids);
                throw new org.springframework.dao.QueryTimeoutException("the database took too long");
            }
            return store.proceed();
        }

    }

    /** Runs an action after the store's next read of live tasks, and returns what it read before the action. */
    static class StaleReads extends TaskStoreInterceptor {

        volatile Runnable afterRead;

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            Object result = store.proceed();
            Runnable action = this.afterRead;
            if (method.equals("findLive") && action != null) {
                this.afterRead = null;
                action.run();
            }
            return result;
        }

    }

    @Test
    void taskTakenButNotAcknowledgedWithinItsLeaseIsDeliveredAgain() {
        long[] taken = new long[2];
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.lease=1s").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(RECORDED).build());
            // a consumer takes the task and dies before acknowledging it
            Claims.Batch batch = context.getBean(Claims.class).claim(new QueueId(RECORDED, 0), 1);
            assertThat(batch.tasks()).extracting(StoredTask::taskId).containsExactly(id);
            assertThat(service.cancelTask(id)).as("a taken task cannot be cancelled").isFalse();
            taken[0] = id;
            taken[1] = System.currentTimeMillis();
        });
        this.runner.withPropertyValues("delay-task.lease=1s").run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(taken[0]));
            assertThat(listeners.runs.get(taken[0]).get(0)).isGreaterThanOrEqualTo(taken[1] + 900);
            await().atMost(Duration.ofSeconds(5)).until(() -> status(context, taken[0]) == TaskStatus.EXECUTED);
            assertThat(count(context, "SELECT attempts FROM taskinfo_logs WHERE task_id = " + taken[0]))
                .as("the consumer that died never started the handler: one run")
                .isEqualTo(1);
        });
    }

    @Test
    void badTasksAreRefusedWithAClearMessageAndNothingIsWritten() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.max-parameters-size=10B")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> service.addTask(null))
                    .withMessageContaining("null");
                assertThatExceptionOfType(IllegalArgumentException.class)
                    .isThrownBy(() -> service.addTask(DelayTask.builder(-1).build()))
                    .withMessageContaining("Task type -1");
                assertThatExceptionOfType(IllegalArgumentException.class)
                    .isThrownBy(() -> service.addTask(DelayTask.builder(1).priority(DelayTask.MAX_PRIORITY + 1).build()))
                    .withMessageContaining("Priority");
                assertThatExceptionOfType(IllegalArgumentException.class)
                    .isThrownBy(() -> service.addTask(DelayTask.builder(1).parameters("more than ten bytes").build()))
                    .withMessageContaining("delay-task.max-parameters-size");
                assertThat(count(context, "SELECT COUNT(*) FROM taskinfo_logs")).isZero();
                assertThat(this.backend.redisKeys()).as("only the jobs' locks, the feed's marker and the shared settings")
                    .allMatch((key) -> key.contains(":lock:") || key.contains(":{settings}")
                            || key.endsWith(":feed"));
            });
    }

    @Test
    void addingATaskWhoseBusinessKeyIsLiveReturnsTheExistingTaskAndStoresNothing() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long first = service.addTask(DelayTask.builder(NO_LISTENER).bizKey("order:1:timeout")
                .delay(Duration.ofMinutes(30)).build());
            long second = service.addTask(DelayTask.builder(NO_LISTENER).bizKey("order:1:timeout")
                .delay(Duration.ofMinutes(5)).build());
            assertThat(second).isEqualTo(first);
            assertThat(count(context, "SELECT COUNT(*) FROM taskinfo_logs")).isEqualTo(1);
        });
    }

    @Test
    void concurrentSingleAddsEachGetTheirOwnTaskAndOnlyTheAddOfAnExistingIdFails() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            service.addTask(DelayTask.builder(NO_LISTENER).taskId(77L).parameters("first").delay(Duration.ofHours(1))
                .build());
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Long>> adds = new ArrayList<>();
                for (int i = 0; i < 400; i++) {
                    DelayTask task = (i == 200) ? DelayTask.builder(NO_LISTENER).taskId(77L).parameters("second").build()
                            : DelayTask.builder(RECORDED).delay(Duration.ofMillis(100)).parameters("n" + i).build();
                    adds.add(pool.submit(() -> {
                        start.await();
                        return service.addTask(task);
                    }));
                }
                start.countDown();
                Map<Long, Integer> added = new java.util.HashMap<>();
                for (int i = 0; i < adds.size(); i++) {
                    if (i == 200) {
                        assertThatExceptionOfType(ExecutionException.class).isThrownBy(adds.get(i)::get)
                            .havingCause()
                            .isInstanceOf(DelayTaskException.class)
                            .withMessageContaining("77");
                    }
                    else {
                        added.put(adds.get(i).get(), i);
                    }
                }
                assertThat(added).hasSize(399);
                Listeners listeners = context.getBean(Listeners.class);
                await().atMost(Duration.ofSeconds(20)).until(() -> listeners.runs.keySet().containsAll(added.keySet()));
                added.forEach((id, i) -> {
                    assertThat(listeners.runs.get(id)).hasSize(1);
                    assertThat(listeners.received.get(id).getParametersAsString()).isEqualTo("n" + i);
                });
                assertThat(count(context, "SELECT COUNT(*) FROM taskinfo_logs")).isEqualTo(400);
                assertThat(new String(service.findTask(77L).orElseThrow().parameters(),
                        java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("first");
            }
            finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void theStoreSeesACallersTransactionWithOrWithoutSynchronizationSoSuchAddsAreNeverShared() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            TaskStore store = context.getBean(TaskStore.class);
            DataSourceTransactionManager unsynchronized = new DataSourceTransactionManager(
                    context.getBean(DataSource.class));
            unsynchronized.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
            assertThat(store.inCallerTransaction()).isFalse();
            new TransactionTemplate(unsynchronized)
                .executeWithoutResult((status) -> assertThat(store.inCallerTransaction()).isTrue());
            context.getBean(TransactionTemplate.class)
                .executeWithoutResult((status) -> assertThat(store.inCallerTransaction()).isTrue());
            assertThat(store.inCallerTransaction()).isFalse();
        });
    }

    @Test
    void concurrentAddsOfOneBusinessKeyMakeOneTask() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            java.util.Set<Long> ids = ConcurrentHashMap.newKeySet();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> adds = new java.util.ArrayList<>();
            for (int i = 0; i < 16; i++) {
                adds.add(pool.submit(() -> {
                    start.await();
                    return ids.add(service.addTask(DelayTask.builder(NO_LISTENER).bizKey("order:2:timeout")
                        .delay(Duration.ofMinutes(30)).build()));
                }));
            }
            start.countDown();
            for (Future<?> add : adds) {
                add.get();
            }
            pool.shutdown();
            assertThat(ids).hasSize(1);
            assertThat(count(context, "SELECT COUNT(*) FROM taskinfo")).isEqualTo(1);
        });
    }

    @Test
    void cancelByBusinessKeyFreesTheKeyForANewTask() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long first = service.addTask(DelayTask.builder(NO_LISTENER).bizKey("order:3").build());
            assertThat(service.cancelTask("order:3")).isTrue();
            assertThat(service.cancelTask("order:3")).isFalse();
            long second = service.addTask(DelayTask.builder(NO_LISTENER).bizKey("order:3").build());
            assertThat(second).isNotEqualTo(first);
            assertThat(service.findTask(first)).get().extracting(TaskDetails::status).isEqualTo(TaskStatus.CANCELLED);
            assertThat(service.findTask(second)).get().extracting(TaskDetails::status)
                .isEqualTo(TaskStatus.SCHEDULED);
        });
    }

    @Test
    void findTaskShowsStatusAttemptsAndLastErrorAndDeadTasksCanBeListedAndRequeued() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            listeners.flakyFailures.set(3);
            long id = service.addTask(DelayTask.builder(FLAKY).parameters("x").build());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(id).map(TaskDetails::status).orElse(null) == TaskStatus.DEAD);
            TaskDetails dead = service.findTask(id).orElseThrow();
            assertThat(dead.attempts()).isEqualTo(3);
            assertThat(dead.lastError()).contains("flaky failure");
            assertThat(service.findDeadTasks(0, 10)).extracting(TaskDetails::taskId).containsExactly(id);
            assertThat(service.findDeadTasksNewestFirst(0, 10, true)).singleElement()
                .extracting(TaskDetails::parameters)
                .isEqualTo("x".getBytes(StandardCharsets.UTF_8));
            assertThat(service.findDeadTasksNewestFirst(0, 10, false)).singleElement()
                .satisfies((page) -> assertThat(page.taskId()).isEqualTo(id))
                .satisfies((page) -> assertThat(page.lastError()).contains("flaky failure"))
                .extracting(TaskDetails::parameters)
                .as("parameters read when not asked for")
                .isNull();
            assertThat(service.requeueTask(id)).isTrue();
            assertThat(service.requeueTask(id)).as("no longer dead").isFalse();
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(id).map(TaskDetails::status).orElse(null) == TaskStatus.EXECUTED);
            assertThat(listeners.flakyRuns.get()).isEqualTo(4);
            assertThat(service.findDeadTasks(0, 10)).isEmpty();
            assertThat(service.findTask(987654321L)).isEmpty();
        });
    }

    @Test
    void cancellingADeadTaskDiscardsItSoThatItIsNeitherListedNorRequeuedAsDeadAgain() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            // three attempts each, all failing; the requeued one then succeeds
            context.getBean(Listeners.class).flakyFailures.set(6);
            long discarded = service.addTask(DelayTask.builder(FLAKY).build());
            long kept = service.addTask(DelayTask.builder(FLAKY).build());
            await().atMost(Duration.ofSeconds(20))
                .until(() -> status(context, discarded) == TaskStatus.DEAD && status(context, kept) == TaskStatus.DEAD);

            assertThat(service.cancelTask(discarded)).isTrue();
            assertThat(service.cancelTask(discarded)).as("cancelled already").isFalse();
            assertThat(status(context, discarded)).isEqualTo(TaskStatus.CANCELLED);
            assertThat(service.findDeadTasks(0, 10)).extracting(TaskDetails::taskId).containsExactly(kept);
            assertThat(service.requeueTask(discarded)).isFalse();
            assertThat(service.requeueDeadTasks(FLAKY, 0)).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> status(context, kept) == TaskStatus.EXECUTED);
            assertThat(status(context, discarded)).isEqualTo(TaskStatus.CANCELLED);
        });
    }

    @Test
    void requeueDeadTasksRunsEveryDeadTaskOfItsQueueAgainButOneWhoseBusinessKeyIsLiveAgain() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            listeners.flakyFailures.set(9);
            long first = service.addTask(DelayTask.builder(FLAKY).build());
            long second = service.addTask(DelayTask.builder(FLAKY).build());
            long keyed = service.addTask(DelayTask.builder(FLAKY).bizKey("requeue:clash").build());
            await().atMost(Duration.ofSeconds(20)).until(() -> status(context, first) == TaskStatus.DEAD
                    && status(context, second) == TaskStatus.DEAD && status(context, keyed) == TaskStatus.DEAD);
            service.addTask(DelayTask.builder(NO_LISTENER).bizKey("requeue:clash").delay(Duration.ofHours(1)).build());

            assertThat(service.requeueDeadTasks(PAYLOAD, 0)).as("another queue").isZero();
            assertThat(service.requeueDeadTasks(FLAKY, 0)).isEqualTo(2);

            await().atMost(Duration.ofSeconds(10)).until(() -> status(context, first) == TaskStatus.EXECUTED
                    && status(context, second) == TaskStatus.EXECUTED);
            assertThat(status(context, keyed)).isEqualTo(TaskStatus.DEAD);
            assertThat(service.requeueDeadTasks(FLAKY, 0)).as("its key is still live").isZero();
        });
    }

    @Test
    void rescheduledTaskFiresAtItsNewTimeOnly() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            long movedLater = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(300)).build());
            long movedEarlier = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofHours(1)).build());
            long later = System.currentTimeMillis() + 2000;
            assertThat(service.rescheduleTask(movedLater, java.time.Instant.ofEpochMilli(later))).isTrue();
            assertThat(service.rescheduleTask(movedEarlier, java.time.Instant.now())).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> listeners.runs.containsKey(movedEarlier));
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.containsKey(movedLater));
            assertThat(listeners.runs.get(movedLater)).hasSize(1);
            assertThat(listeners.runs.get(movedLater).get(0)).isGreaterThanOrEqualTo(later);
            assertThat(service.rescheduleTask(movedLater, java.time.Instant.now())).as("already ran").isFalse();
        });
    }

    @Test
    void handlerCanChooseWhenItsTaskRunsAgainAndTheListenerBoundsItsAttempts() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            long id = service.addTask(DelayTask.builder(RETRY_LATER).build());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(id).map(TaskDetails::status).orElse(null) == TaskStatus.DEAD);
            List<Long> runs = listeners.runs.get(id);
            assertThat(runs).as("maxAttempts = 2 on the annotation").hasSize(2);
            assertThat(runs.get(1) - runs.get(0)).as("the delay the handler asked for").isGreaterThanOrEqualTo(700);
        });
    }

    @Test
    void taskAddedInACommittedTransactionReachesRedisOnlyAtTheCommit() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
            long id = transaction.execute((status) -> {
                long taskId = service.addTask(DelayTask.builder(NO_LISTENER).build());
                assertThat(redisSizes(context, NO_LISTENER)).as("before the commit").containsExactly(0, 0, 0);
                return taskId;
            });
            assertThat(redisSizes(context, NO_LISTENER)[0]).isEqualTo(1);
            assertThat(service.poll(NO_LISTENER, 0).getTaskId()).isEqualTo(id);
        });
    }

    @Test
    void aTaskAddedInATransactionWithoutSynchronizationIsHandedToRedisOnceItsRowIsCommitted() {
        // the keys of this store alone, the default: a claim drops an id of no live task at once
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.redis.key-prefix=")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                DataSourceTransactionManager unsynchronized = new DataSourceTransactionManager(
                        context.getBean(DataSource.class));
                unsynchronized.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
                ExecutorService consumer = Executors.newSingleThreadExecutor();
                try {
                    // the recovery a first claim of the queue starts is over first: it would load the task if it
                    // read the table after the commit
                    assertThat(pollElsewhere(consumer, service)).isNull();
                    RecoveryMarkers markers = context.getBean(RecoveryMarkers.class);
                    await().atMost(Duration.ofSeconds(10))
                        .until(() -> markers.unloaded(List.of(new QueueId(NO_LISTENER, 0))).isEmpty());
                    long id = new TransactionTemplate(unsynchronized).execute((status) -> {
                        long taskId = service.addTask(DelayTask.builder(NO_LISTENER).build());
                        // a consumer elsewhere, as a dispatcher would, before the commit: the row is not there for it
                        // yet; before, the id was in Redis already, and this claim dropped it as of no live task, so
                        // that the task waited for the reload
                        assertThat(pollElsewhere(consumer, service)).isNull();
                        return taskId;
                    });
                    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                        DelayTask polled = pollElsewhere(consumer, service);
                        assertThat(polled).isNotNull();
                        assertThat(polled.getTaskId()).isEqualTo(id);
                    });
                }
                finally {
                    consumer.shutdownNow();
                    this.backend.deleteRedisKeys(context.getBean(RedisKeys.class).prefix());
                }
            });
    }

    /** A task of the queue without listener, polled on another thread, as another consumer would. */
    private static DelayTask pollElsewhere(ExecutorService consumer, DelayTaskService service) {
        try {
            return consumer.submit(() -> service.poll(NO_LISTENER, 0)).get();
        }
        catch (InterruptedException | java.util.concurrent.ExecutionException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Test
    void closingTheApplicationLetsRunningHandlersFinishAndRecordsThem() {
        long[] id = new long[1];
        Listeners[] closed = new Listeners[1];
        this.runner.run((context) -> {
            closed[0] = context.getBean(Listeners.class);
            id[0] = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(SLOW).build());
            await().atMost(Duration.ofSeconds(5)).until(() -> closed[0].slowStarted.getCount() == 0);
        });
        assertThat(closed[0].slowFinished.get()).as("the handler finished before the context closed").isEqualTo(1);
        this.runner.withPropertyValues("delay-task.listener.enabled=false")
            .run((context) -> assertThat(status(context, id[0])).isEqualTo(TaskStatus.EXECUTED));
    }

    @Test
    void addTasksStoresABatchAndEachTaskRunsOnce() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            List<DelayTask> batch = new java.util.ArrayList<>();
            for (int i = 0; i < 50; i++) {
                batch.add(DelayTask.builder(RECORDED).delay(Duration.ofMillis(200)).parameters("n" + i).build());
            }
            batch.add(DelayTask.builder(RECORDED).bizKey("batch:key").build());
            batch.add(DelayTask.builder(RECORDED).bizKey("batch:key").build());
            List<Long> ids = service.addTasks(batch);
            assertThat(ids).hasSize(52);
            assertThat(ids.get(50)).as("same business key, same task").isEqualTo(ids.get(51));
            assertThat(batch.get(7).getTaskId()).isEqualTo(ids.get(7));
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.keySet().containsAll(ids));
            assertThat(ids).allSatisfy((id) -> assertThat(listeners.runs.get(id)).hasSize(1));
            assertThat(listeners.received.get(ids.get(7)).getParametersAsString()).isEqualTo("n7");
            await().atMost(Duration.ofSeconds(5)).until(() -> count(context,
                    "SELECT COUNT(*) FROM taskinfo_logs WHERE status = " + TaskStatus.EXECUTED.code()) == 51);
        });
    }

    @Test
    void addTasksInATransactionThatRollsBackStoresNone() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            context.getBean(TransactionTemplate.class).executeWithoutResult((status) -> {
                service.addTasks(List.of(DelayTask.builder(NO_LISTENER).build(), DelayTask.builder(NO_LISTENER).build()));
                status.setRollbackOnly();
            });
            assertThat(count(context, "SELECT COUNT(*) FROM taskinfo_logs")).isZero();
            assertThat(redisSizes(context, NO_LISTENER)).containsExactly(0, 0, 0);
        });
    }

    @Test
    void aClaimWinsOnlyLiveDueTasksThatNoConsumerHoldsAndAFinishOnlyItsOwnClaim() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            TaskStore store = context.getBean(TaskStore.class);
            long now = store.currentTimeMillis();
            List<Long> ids = new ArrayList<>(service.addTasks(List.of(DelayTask.builder(NO_LISTENER).build(),
                    DelayTask.builder(NO_LISTENER).build(), DelayTask.builder(NO_LISTENER).build(),
                    DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build())));
            long cancelled = service.addTask(DelayTask.builder(NO_LISTENER).build());
            assertThat(service.cancelTask(cancelled)).isTrue();
            ids.add(cancelled);
            long held = ids.get(1);
            assertThat(store.claimDue(List.of(held), now + 1000, now + 60_000)).extracting(StoredTask::taskId)
                .containsExactly(held);

            List<StoredTask> won = store.claimDue(ids, now + 1000, now + 60_000);

            assertThat(won).extracting(StoredTask::taskId).containsExactlyInAnyOrder(ids.get(0), ids.get(2));
            assertThat(won).allSatisfy((task) -> {
                assertThat(task.leaseUntil()).isEqualTo(now + 60_000);
                assertThat(task.attempts()).as("a claim is not a run").isZero();
                assertThat(task.attempt()).isEqualTo(1);
                assertThat(task.version()).isEqualTo(2);
            });
            assertThat(store.claimDue(List.of(held), now + 60_000, now + 120_000)).as("taken over once the lease ran out")
                .extracting(StoredTask::version)
                .containsExactly(3);
            assertThat(store.finishAllExecuted(won).finished()).hasSize(2);
            assertThat(store.finishAllExecuted(won).finished()).as("already finished").isEmpty();
            StoredTask firstClaimOfHeld = new StoredTask(held, NO_LISTENER, 0, now, null, 2, 1, now + 60_000);
            assertThat(store.finishAllExecuted(List.of(firstClaimOfHeld)).finished()).as("lost to the take-over").isEmpty();
            assertThat(status(context, held)).isEqualTo(TaskStatus.SCHEDULED);
            assertThat(status(context, ids.get(0))).isEqualTo(TaskStatus.EXECUTED);
        });
    }

    @Test
    void tasksClaimedButNotStartedGoBackAtOnceWhenTheApplicationCloses() {
        List<Long> ids = new CopyOnWriteArrayList<>();
        this.runner.withPropertyValues("delay-task.listener.concurrency=1", "delay-task.listener.prefetch=5")
            .run((context) -> {
                Listeners listeners = context.getBean(Listeners.class);
                ids.addAll(context.getBean(DelayTaskService.class).addTasks(List.of(DelayTask.builder(SLOW).build(),
                        DelayTask.builder(SLOW).build(), DelayTask.builder(SLOW).build())));
                await().atMost(Duration.ofSeconds(5)).until(() -> listeners.slowStarted.getCount() == 0);
                await().atMost(Duration.ofSeconds(5)).until(() -> count(context,
                        "SELECT COUNT(*) FROM taskinfo WHERE lease_until IS NOT NULL") == 3);
            });
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            assertThat(count(context, "SELECT COUNT(*) FROM taskinfo WHERE lease_until IS NOT NULL")).isZero();
            assertThat(count(context, "SELECT COUNT(*) FROM taskinfo WHERE attempts > 0")).isZero();
            DelayTaskService service = context.getBean(DelayTaskService.class);
            // due again now, not after the 30 s lease
            assertThat(service.poll(SLOW, 0)).isNotNull();
            assertThat(service.poll(SLOW, 0)).isNotNull();
            assertThat(service.poll(SLOW, 0)).isNull();
        });
    }

    @Test
    void reloadDoesNotQueueATaskThatIsAlreadyReadyASecondTime() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            awaitFirstRecovery(context, NO_LISTENER);
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(NO_LISTENER).build());
            DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                jobs.refreshNow();
                return redisSizes(context, NO_LISTENER)[1] == 1;
            });
            jobs.reloadNow();
            jobs.refreshNow();
            assertThat(redisSizes(context, NO_LISTENER)).containsExactly(0, 1, 0);
            assertThat(service.poll(NO_LISTENER, 0).getTaskId()).isEqualTo(id);
            // poll tells Redis of the outcome on a thread of its own, once the database recorded it
            await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(redisSizes(context, NO_LISTENER)).as("acknowledged, nothing left")
                    .containsExactly(0, 0, 0));
        });
    }

    /**
     * Have a queue recovered now, as its first claim in a Redis the test emptied would: the reload of that recovery
     * may bring back the id of a task this test finishes meanwhile (harmless, as the next claim drops it, but not
     * what a test of exact queue sizes expects).
     */
    private void awaitFirstRecovery(AssertableApplicationContext context, int taskType) {
        QueueId queue = new QueueId(taskType, 0);
        context.getBean(Claims.class).claim(queue, 0);
        RecoveryMarkers markers = context.getBean(RecoveryMarkers.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> markers.unloaded(List.of(queue)).isEmpty());
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

    private long[] redisSizes(AssertableApplicationContext context, int taskType) {
        return context.getBean(QueueAdministration.class).sizes(new QueueId(taskType, 0));
    }

    record Order(Long id, String status) {
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final Map<Long, List<Long>> runs = new ConcurrentHashMap<>();

        final Map<Long, DelayTask> received = new ConcurrentHashMap<>();

        final List<Order> orders = new CopyOnWriteArrayList<>();

        final AtomicInteger flakyFailures = new AtomicInteger();

        final AtomicInteger flakyRuns = new AtomicInteger();

        @DelayTaskListener(taskType = RECORDED)
        void record(DelayTask task) {
            this.runs.computeIfAbsent(task.getTaskId(), (id) -> new CopyOnWriteArrayList<>())
                .add(System.currentTimeMillis());
            this.received.put(task.getTaskId(), task);
        }

        @DelayTaskListener(taskType = PAYLOAD)
        void order(Order order) {
            this.orders.add(order);
        }

        @DelayTaskListener(taskType = FLAKY)
        void flaky(byte[] parameters) {
            this.flakyRuns.incrementAndGet();
            if (this.flakyFailures.getAndDecrement() > 0) {
                throw new IllegalStateException("flaky failure");
            }
        }

        final CountDownLatch slowStarted = new CountDownLatch(1);

        final AtomicInteger slowFinished = new AtomicInteger();

        @DelayTaskListener(taskType = RETRY_LATER, maxAttempts = 2, initialDelay = "${test.unused-delay:10ms}")
        void retryLater(DelayTask task) {
            record(task);
            throw new RetryLaterException(Duration.ofMillis(700));
        }

        @DelayTaskListener(taskType = SLOW)
        void slow(DelayTask task) throws InterruptedException {
            this.slowStarted.countDown();
            // long enough that the context closes while it runs; short enough for the shutdown timeout
            java.util.concurrent.TimeUnit.MILLISECONDS.sleep(500);
            this.slowFinished.incrementAndGet();
        }

        final CountDownLatch gatedStarted = new CountDownLatch(1);

        final CountDownLatch gate = new CountDownLatch(1);

        @DelayTaskListener(taskType = GATED)
        void gated(DelayTask task) throws InterruptedException {
            record(task);
            this.gatedStarted.countDown();
            this.gate.await();
        }

        /** Three times the lease of the tests that use it (2 s). */
        @DelayTaskListener(taskType = LONG)
        void longRun(DelayTask task) throws InterruptedException {
            record(task);
            java.util.concurrent.TimeUnit.SECONDS.sleep(6);
        }

        @Bean
        TransactionTemplate transactionTemplate(org.springframework.transaction.PlatformTransactionManager manager) {
            return new TransactionTemplate(manager);
        }

    }

}
