package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.Claim;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.redis.RecoveryMarkers;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.RedisTaskQueues;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.VolatileRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis loses everything ({@code FLUSHALL}), or comes back from an older snapshot, while tasks are pending, with the
 * default reload interval of a minute: the first claim that finds its queue's loaded marker missing, or that succeeds
 * after a failed one, has the queues reloaded at once, on one instance, so tasks due soon after still run within a
 * second of their time. On an embedded Redis and H2; the fault tests do the same with a Redis that restarts empty,
 * on PostgreSQL.
 */
class RedisDataLossRecoveryTests {

    private static final int TYPE = 1;

    private static final QueueId QUEUE = new QueueId(TYPE, 0);

    private static final Duration BOUND = Duration.ofSeconds(1);

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeEach
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(Listeners.class, RecordingQueuesConfiguration.class);
    }

    @AfterEach
    void stopBackend() {
        this.backend.close();
    }

    @Test
    void tasksDueFrom300MsTo2SecondsAfterAFlushAllRunWithinASecondOfTheirTime() {
        this.runner.run((context) -> {
            awaitSteadyState(context);
            Map<Long, Long> executeTimes = addTasksDueFrom300MsTo2Seconds(context);
            assertThat(LongStream.of(context.getBean(QueueAdministration.class).sizes(QUEUE)).sum())
                .as("ids in Redis before the flush")
                .isPositive();

            flushAll(context);

            assertEveryTaskRanOnceWithinTheBound(executeTimes, List.of(context.getBean(Listeners.class)));
            assertThat(context.getBean(RecordingQueues.class).recoveries).as("recoveries").hasValue(1);
        });
    }

    @Test
    void tasksARedisRestartedFromAnOlderSnapshotMissesRunWithinASecondOfTheirTimeOrOfRedisBeingBack() {
        // as a fail-over to a replica that missed the last writes: the marker is back, the last tasks are not
        try (VolatileRedis redis = VolatileRedis.startWithSnapshots()) {
            this.runner.withPropertyValues("spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=1s")
                .run((context) -> {
                    awaitSteadyState(context);
                    RecordingQueues queues = context.getBean(RecordingQueues.class);
                    redis.snapshot();
                    Map<Long, Long> executeTimes = addTasksDueFrom300MsTo2Seconds(context);

                    redis.stop();
                    // a claim that waited out the command timeout: what the application sees of the restart
                    await().atMost(Duration.ofSeconds(10)).until(() -> queues.failedClaims.get() > 0);
                    redis.startAgain();
                    long backAt = awaitReachable(context);

                    assertEveryTaskRanOnceWithinTheBound(executeTimes, List.of(context.getBean(Listeners.class)),
                            backAt);
                    // the tasks due while Redis was away ran from the database; the queue goes back to Redis, and is
                    // recovered, once the probe of the database's dispatch finds Redis answering
                    await().atMost(Duration.ofSeconds(5)).until(() -> queues.recoveries.get() >= 1);
                    assertThat(queues.recoveries).as("recoveries").hasValue(1);
                });
        }
    }

    @Test
    void atStartUpTheQueuesAreMarkedOnceAndAnIdleApplicationDoesNotRecoverAgain() {
        this.runner.run((context) -> {
            RecordingQueues queues = context.getBean(RecordingQueues.class);
            await().atMost(Duration.ofSeconds(10))
                .until(() -> context.getBean(RecoveryMarkers.class).unloaded(List.of(QUEUE)).isEmpty());
            assertThat(queues.recoveries).as("recoveries at start-up").hasValue(1);
            // ten polls of the idle queue, each reading the marker in its claim
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> queues.recoveries.get() == 1);
        });
    }

    @Test
    void aFlushAllWhileTheRecoveryReloadsLeavesTheQueueUnmarkedSoTheNextClaimRecoversItAgain() {
        this.runner.run((context) -> {
            awaitSteadyState(context);
            RecordingQueues queues = context.getBean(RecordingQueues.class);
            Map<Long, Long> executeTimes = addTasksDueFrom300MsTo2Seconds(context);
            queues.flushAfterNextReloadWrite.set(true);

            flushAll(context);

            assertEveryTaskRanOnceWithinTheBound(executeTimes, List.of(context.getBean(Listeners.class)));
            assertThat(queues.flushAfterNextReloadWrite).as("flushed again while the recovery reloaded").isFalse();
            // the flush dropped the recovery's lock too: the recovery the next claim asked for may run beside the
            // flushed one and finish first, but only the later one can mark the queue (the flushed one's marker is
            // gone, and the later one's holds another id)
            assertThat(queues.marked).as("queues marked by each recovery")
                .containsExactlyInAnyOrder(List.of(), List.of(QUEUE));
        });
    }

    @Test
    void aRecoveryWhoseReloadFailsTakesItsMarkerBackAndTriesAgainSoTasksStillRunWithinASecondOfTheirTime() {
        this.runner.run((context) -> {
            awaitSteadyState(context);
            RecordingQueues queues = context.getBean(RecordingQueues.class);
            Map<Long, Long> executeTimes = addTasksDueFrom300MsTo2Seconds(context);
            queues.failNextReloadWrite.set(true);

            flushAll(context);

            await().atMost(Duration.ofSeconds(10)).until(() -> !queues.failNextReloadWrite.get());
            assertEveryTaskRanOnceWithinTheBound(executeTimes, List.of(context.getBean(Listeners.class)));
            assertThat(queues.recoveries).as("recoveries, the failed one included").hasValue(2);
            assertThat(queues.marked).as("queues marked by each recovery that finished").containsExactly(List.of(QUEUE));
        });
    }

    @Test
    void afterAFlushAllOneOfTwoInstancesRecoversAndEachTaskRunsOnce() {
        this.runner.run((first) -> this.runner.run((second) -> {
            awaitSteadyState(first, second);
            List<RecordingQueues> queues = List.of(first.getBean(RecordingQueues.class),
                    second.getBean(RecordingQueues.class));
            Map<Long, Long> executeTimes = addTasksDueFrom300MsTo2Seconds(first);

            flushAll(first);

            assertEveryTaskRanOnceWithinTheBound(executeTimes,
                    List.of(first.getBean(Listeners.class), second.getBean(Listeners.class)));
            assertThat(queues.get(0).recoveries.get() + queues.get(1).recoveries.get()).as("recoveries")
                .isEqualTo(1);
        }));
    }

    @Test
    void reloadsRunningAtOnceOnTwoInstancesWhileTheTasksAreClaimedRunEachTaskOnceAndNeverEarly() {
        // what happens when a FLUSHALL also drops the reload or recovery lock that one instance held
        this.runner.run((first) -> this.runner.run((second) -> {
            awaitSteadyState(first, second);
            List<Listeners> instances = List.of(first.getBean(Listeners.class), second.getBean(Listeners.class));
            Map<Long, Long> executeTimes = addTasksDueFrom300MsTo2Seconds(first);
            AtomicBoolean allRan = new AtomicBoolean();
            ExecutorService reloaders = Executors.newFixedThreadPool(2);
            try {
                List<Future<Integer>> reloads = new ArrayList<>();
                for (AssertableApplicationContext context : List.of(first, second)) {
                    DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);
                    reloads.add(reloaders.submit(() -> {
                        int count = 0;
                        while (!allRan.get()) {
                            jobs.reloadNow();
                            count++;
                        }
                        return count;
                    }));
                }
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> runs(instances).keySet().containsAll(executeTimes.keySet()));
                allRan.set(true);
                for (Future<Integer> reload : reloads) {
                    assertThat(reload.get()).as("reloads on one instance").isGreaterThan(1);
                }
            }
            finally {
                allRan.set(true);
                reloaders.shutdownNow();
            }
            Map<Long, List<Long>> runs = runs(instances);
            executeTimes.forEach((id, executeTime) -> assertThat(runs.get(id)).as("runs of task %d", id)
                .singleElement()
                .satisfies((startedAt) -> assertThat(startedAt).isGreaterThanOrEqualTo(executeTime)));
        }));
    }

    /**
     * A task ran and every instance found its queue marked: the start-up reloads and the first recovery are over.
     */
    private void awaitSteadyState(AssertableApplicationContext... instances) {
        for (AssertableApplicationContext context : instances) {
            assertThat(context).hasNotFailed();
        }
        DelayTaskService service = instances[0].getBean(DelayTaskService.class);
        long id = service.addTask(DelayTask.builder(TYPE).build());
        await().atMost(Duration.ofSeconds(10))
            .until(() -> service.findTask(id).map(TaskDetails::status).orElseThrow() == TaskStatus.EXECUTED);
        for (AssertableApplicationContext context : instances) {
            RecordingQueues queues = context.getBean(RecordingQueues.class);
            await().atMost(Duration.ofSeconds(10))
                .until(() -> context.getBean(RecoveryMarkers.class).unloaded(List.of(QUEUE)).isEmpty());
            context.getBean(Listeners.class).runs.clear();
            queues.recoveries.set(0);
            queues.marked.clear();
        }
    }

    private Map<Long, Long> addTasksDueFrom300MsTo2Seconds(AssertableApplicationContext context) {
        DelayTaskService service = context.getBean(DelayTaskService.class);
        Map<Long, Long> executeTimes = new HashMap<>();
        for (long delay = 300; delay <= 2000; delay += 100) {
            DelayTask task = DelayTask.builder(TYPE).delay(Duration.ofMillis(delay)).build();
            executeTimes.put(service.addTask(task), task.getExecuteTime());
        }
        return executeTimes;
    }

    private void assertEveryTaskRanOnceWithinTheBound(Map<Long, Long> executeTimes, List<Listeners> instances) {
        assertEveryTaskRanOnceWithinTheBound(executeTimes, instances, 0);
    }

    /** Each task ran once, within the bound of its time or of Redis being back, whichever is later. */
    private void assertEveryTaskRanOnceWithinTheBound(Map<Long, Long> executeTimes, List<Listeners> instances,
            long backAt) {
        await().atMost(Duration.ofSeconds(10))
            .until(() -> runs(instances).keySet().containsAll(executeTimes.keySet()));
        Map<Long, List<Long>> runs = runs(instances);
        long latest = executeTimes.entrySet()
            .stream()
            .mapToLong((entry) -> runs.get(entry.getKey()).get(0) - Math.max(entry.getValue(), backAt))
            .max()
            .orElseThrow();
        System.out.println("recovery: tasks=" + executeTimes.size() + " most-late=" + latest + "ms");
        executeTimes.forEach((id, executeTime) -> {
            assertThat(runs.get(id)).as("runs of task %d", id).hasSize(1);
            assertThat(runs.get(id).get(0)).as("start of task %d, due at %d", id, executeTime)
                .isBetween(executeTime, Math.max(executeTime, backAt) + BOUND.toMillis());
        });
    }

    private static Map<Long, List<Long>> runs(List<Listeners> instances) {
        Map<Long, List<Long>> runs = new HashMap<>();
        instances.forEach((listeners) -> listeners.runs
            .forEach((id, times) -> runs.computeIfAbsent(id, (key) -> new ArrayList<>()).addAll(times)));
        return runs;
    }

    /** When the application's own connection reaches Redis again: a command sent now waits for the reconnection. */
    private static long awaitReachable(AssertableApplicationContext context) {
        StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).ignoreExceptions()
            .until(() -> "PONG".equals(redis.execute((RedisCallback<String>) RedisConnection::ping)));
        return System.currentTimeMillis();
    }

    private static void flushAll(AssertableApplicationContext context) {
        context.getBean(StringRedisTemplate.class).execute((RedisCallback<Void>) (connection) -> {
            connection.serverCommands().flushAll();
            return null;
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final Map<Long, List<Long>> runs = new ConcurrentHashMap<>();

        @DelayTaskListener(taskType = TYPE)
        void record(DelayTask task) {
            this.runs.computeIfAbsent(task.getTaskId(), (id) -> new CopyOnWriteArrayList<>())
                .add(System.currentTimeMillis());
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class RecordingQueuesConfiguration {

        @Bean
        RecordingQueues recordingQueues(StringRedisTemplate redis, RedisKeys keys) {
            return new RecordingQueues(redis, keys);
        }

        @Bean
        RecordingMarkers recordingMarkers(StringRedisTemplate redis, RedisKeys keys, RecordingQueues queues) {
            return new RecordingMarkers(redis, keys, queues);
        }

    }

    /**
     * The starter's queues, counting recoveries, and flushing Redis once more right after a reload wrote, or failing
     * a reload's write once.
     */
    static class RecordingQueues extends RedisTaskQueues {

        final AtomicInteger recoveries = new AtomicInteger();

        final AtomicInteger failedClaims = new AtomicInteger();

        final List<List<QueueId>> marked = new CopyOnWriteArrayList<>();

        final AtomicBoolean flushAfterNextReloadWrite = new AtomicBoolean();

        final AtomicBoolean failNextReloadWrite = new AtomicBoolean();

        private final StringRedisTemplate redis;

        RecordingQueues(StringRedisTemplate redis, RedisKeys keys) {
            super(redis, keys);
            this.redis = redis;
        }

        @Override
        public Claim claim(QueueId queue, int max, Duration lease, boolean timed) {
            try {
                return super.claim(queue, max, lease, timed);
            }
            catch (RuntimeException ex) {
                this.failedClaims.incrementAndGet();
                throw ex;
            }
        }

        @Override
        public long reload(QueueId queue, Map<Long, Long> executeTimes) {
            if (this.failNextReloadWrite.compareAndSet(true, false)) {
                throw new RedisSystemException("a reload's write failed", null);
            }
            long earliest = super.reload(queue, executeTimes);
            if (this.flushAfterNextReloadWrite.compareAndSet(true, false)) {
                this.redis.execute((RedisCallback<Void>) (connection) -> {
                    connection.serverCommands().flushAll();
                    return null;
                });
            }
            return earliest;
        }

    }

    /** The starter's recovery markers, counting recoveries and what each marked in {@link RecordingQueues}. */
    static class RecordingMarkers extends RecoveryMarkers {

        private final RecordingQueues queues;

        RecordingMarkers(StringRedisTemplate redis, RedisKeys keys, RecordingQueues queues) {
            super(redis, keys);
            this.queues = queues;
        }

        @Override
        public void beginRecovery(Collection<QueueId> queues, String recoveryId) {
            this.queues.recoveries.incrementAndGet();
            super.beginRecovery(queues, recoveryId);
        }

        @Override
        public List<QueueId> finishRecovery(Collection<QueueId> queues, String recoveryId) {
            List<QueueId> marked = super.finishRecovery(queues, recoveryId);
            this.queues.marked.add(marked);
            return marked;
        }

    }

}
