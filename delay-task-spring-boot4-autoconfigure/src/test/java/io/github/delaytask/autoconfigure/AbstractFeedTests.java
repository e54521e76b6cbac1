package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.core.DueSignals;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.redis.RecoveryMarkers;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The feed: every {@code delay-task.feed-interval} it brings the tasks that entered the preload window since its last
 * pass from the database into Redis, reading each once, and it reads the whole window on evidence of a loss. The
 * full reload is an hour away in these tests, so that only the feed brings tasks in. Subclasses pick the database.
 */
public abstract class AbstractFeedTests {

    static final int RECORDED = 1;

    static final int NO_LISTENER = 9;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    @BeforeEach
    void startBackend() {
        this.backend = createBackend();
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.preload-window=2s", "delay-task.feed-interval=200ms",
                    "delay-task.reload-interval=1h");
    }

    @AfterEach
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @Test
    void eachTaskBeyondTheWindowIsReadOnceByTheFeedAsItEntersAndRunsAtItsTime() {
        this.runner.run((context) -> {
            DelayTaskJobs jobs = awaitFirstPass(context);
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long fedBefore = jobs.fedRows();
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                // 5 to 7 s ahead, beyond the 2 s window: left to the feed
                tasks.add(DelayTask.builder(RECORDED).delay(Duration.ofMillis(5000 + 20 * i)).build());
            }
            service.addTasks(tasks);
            assertThat(sizes(context, RECORDED)[0]).as("tasks in Redis before the feed brings them").isZero();
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> listeners.runs.size() == tasks.size());
            for (DelayTask task : tasks) {
                assertThat(listeners.runs.get(task.getTaskId())).as("runs of task %d", task.getTaskId()).hasSize(1)
                    .allSatisfy((ranAt) -> assertThat(ranAt).isGreaterThanOrEqualTo(task.getExecuteTime()));
            }
            // two more passes: none reads a task again, nor sends a task that ran back to Redis
            jobs.feedNow();
            jobs.feedNow();
            assertThat(jobs.fedRows() - fedBefore).as("rows the feed read").isEqualTo(tasks.size());
            assertThat(sizes(context, RECORDED)).as("ids left in Redis").containsExactly(0, 0, 0);
        });
    }

    @Test
    void aRedisThatLostItsDataGetsTheWholeWindowBackFromTheFeedWithoutAnyClaimAsking() {
        // no listener: no claim notices the loss, and the reload is an hour away
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.preload-window=1m")
            .run((context) -> {
                DelayTaskJobs jobs = awaitFirstPass(context);
                addFiveDueInHalfAMinute(context);
                await().atMost(Duration.ofSeconds(5)).until(() -> sizes(context, NO_LISTENER)[0] == 5);
                long fedBefore = jobs.fedRows();
                this.backend.deleteRedisKeys();
                await().atMost(Duration.ofSeconds(10)).until(() -> sizes(context, NO_LISTENER)[0] == 5);
                assertThat(jobs.fedRows() - fedBefore).as("rows the full pass read").isEqualTo(5);
            });
    }

    @Test
    void anInstanceThatStartsReadsTheWholeWindowOnceAndThenOnlyWhatEntersIt() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.preload-window=1m")
            .run((first) -> {
                awaitFirstPass(first);
                addFiveDueInHalfAMinute(first);
                // a hand-off an instance that stopped never made: the ids gone from Redis, the feed's marker in place
                deleteQueueKeys(first, NO_LISTENER, 5);
                DelayTaskJobs firstJobs = first.getBean(DelayTaskJobs.class);
                long fedBefore = firstJobs.fedRows();
                firstJobs.feedNow();
                assertThat(firstJobs.fedRows()).as("rows a pass of the running instance read").isEqualTo(fedBefore);
                assertThat(sizes(first, NO_LISTENER)[0]).isZero();
                this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.preload-window=1m")
                    .run((second) -> {
                        DelayTaskJobs secondJobs = awaitFirstPass(second);
                        assertThat(secondJobs.fedRows()).as("rows the starting instance's first pass read")
                            .isEqualTo(5);
                        assertThat(sizes(second, NO_LISTENER)[0]).isEqualTo(5);
                        secondJobs.feedNow();
                        assertThat(secondJobs.fedRows()).as("rows read by its next pass too").isEqualTo(5);
                    });
            });
    }

    @Test
    void aHandOffThisInstanceGaveUpHasItsNextPassReadTheWholeWindow() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.preload-window=1m")
            .run((context) -> {
                DelayTaskJobs jobs = awaitFirstPass(context);
                addFiveDueInHalfAMinute(context);
                deleteQueueKeys(context, NO_LISTENER, 5);
                jobs.feedNow();
                assertThat(sizes(context, NO_LISTENER)[0]).as("ids a pass brought back unasked").isZero();
                // as when more tasks waited for Redis than the hand-off keeps, or a hand-off threw
                context.getBean(DueSignals.class).handOffsDropped();
                await().atMost(Duration.ofSeconds(10)).until(() -> sizes(context, NO_LISTENER)[0] == 5);
            });
    }

    @Test
    void aMarkerFarAheadOfTheWindowIsNotTrustedSoTasksEnteringTheWindowStillReachRedis() {
        // as after the window was made shorter, or with a clock that ran ahead: a horizon an hour away
        this.runner.run((context) -> {
            awaitFirstPass(context);
            long now = System.currentTimeMillis();
            setMarker(context, now + Duration.ofHours(1).toMillis(), now);
            long id = context.getBean(DelayTaskService.class)
                .addTask(DelayTask.builder(RECORDED).delay(Duration.ofSeconds(5)).build());
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> listeners.runs.containsKey(id));
        });
    }

    @Test
    void aMarkerFarBehindTheClockHasTheWholeWindowRead() {
        // as after Redis came back from a snapshot older than a few passes, which lost the ids written since
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.preload-window=1m")
            .run((context) -> {
                awaitFirstPass(context);
                DelayTask task = DelayTask.builder(NO_LISTENER).delay(Duration.ofSeconds(30)).build();
                context.getBean(DelayTaskService.class).addTask(task);
                deleteQueueKeys(context, NO_LISTENER, 1);
                // a horizon past the lost task, written an hour ago: reading on from it would miss the task
                setMarker(context, task.getExecuteTime() + 1000,
                        System.currentTimeMillis() - Duration.ofHours(1).toMillis());
                await().atMost(Duration.ofSeconds(10)).until(() -> sizes(context, NO_LISTENER)[0] == 1);
            });
    }

    @Test
    void aTaskMovedOutOfRedisInATransactionWithoutSynchronizationThatRollsBackComesBack() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.preload-window=1m")
            .run((context) -> {
                awaitFirstPass(context);
                DelayTaskService service = context.getBean(DelayTaskService.class);
                long id = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofSeconds(30)).build());
                await().atMost(Duration.ofSeconds(5)).until(() -> sizes(context, NO_LISTENER)[0] == 1);
                DataSourceTransactionManager unsynchronized = new DataSourceTransactionManager(
                        context.getBean(DataSource.class));
                unsynchronized.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
                new TransactionTemplate(unsynchronized).executeWithoutResult((status) -> {
                    // no commit to follow: out of Redis at once, and the rollback puts the task back in the database
                    assertThat(service.rescheduleTask(id, Instant.now().plus(Duration.ofHours(1)))).isTrue();
                    status.setRollbackOnly();
                });
                assertThat(sizes(context, NO_LISTENER)[0]).isZero();
                // the feed reads the whole window a few seconds later
                await().atMost(Duration.ofSeconds(15)).until(() -> sizes(context, NO_LISTENER)[0] == 1);
            });
    }

    /**
     * The jobs, once this instance read the whole window at its start, and a pass of the feed under its lock left its
     * marker at a horizon.
     */
    private static DelayTaskJobs awaitFirstPass(AssertableApplicationContext context) {
        DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);
        RecoveryMarkers markers = context.getBean(RecoveryMarkers.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> jobs.lastReload() != null
                && RecoveryMarkers.feedHorizon(markers.feedMarker()) != null);
        return jobs;
    }

    /** Five tasks of the type without a listener, within a window of a minute. */
    private static void addFiveDueInHalfAMinute(AssertableApplicationContext context) {
        DelayTaskService service = context.getBean(DelayTaskService.class);
        for (int i = 0; i < 5; i++) {
            service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofSeconds(30)).build());
        }
    }

    /**
     * Delete a queue's keys once the hand-off of its tasks is done, as if it never happened; the feed's marker stays.
     */
    private void deleteQueueKeys(AssertableApplicationContext context, int taskType, int handedOff) {
        // an add of a task due in more than a second returns at its commit, and the hand-off follows
        await().atMost(Duration.ofSeconds(5)).until(() -> sizes(context, taskType)[0] == handedOff);
        context.getBean(StringRedisTemplate.class).delete(this.backend.redisKeys().stream()
            .filter((key) -> key.contains("{" + taskType + ":0}"))
            .toList());
        assertThat(sizes(context, taskType)[0]).isZero();
    }

    /** The feed's marker as a pass of an instance feeding every 200 ms would leave it. */
    private void setMarker(AssertableApplicationContext context, long horizon, long writtenAt) {
        context.getBean(StringRedisTemplate.class).opsForValue()
            .set(this.backend.keyPrefix() + ":feed", "horizon:" + horizon + ":" + writtenAt + ":200");
    }

    private static long[] sizes(AssertableApplicationContext context, int taskType) {
        return context.getBean(QueueAdministration.class).sizes(new QueueId(taskType, 0));
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final Map<Long, List<Long>> runs = new ConcurrentHashMap<>();

        @DelayTaskListener(taskType = RECORDED)
        void record(DelayTask task) {
            this.runs.computeIfAbsent(task.getTaskId(), (id) -> new CopyOnWriteArrayList<>())
                .add(System.currentTimeMillis());
        }

    }

}
