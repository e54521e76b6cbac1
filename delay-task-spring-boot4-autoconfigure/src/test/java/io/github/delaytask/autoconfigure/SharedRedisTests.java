package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.WakeUps;
import io.github.delaytask.testsupport.TestBackend;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two applications, each with a database of its own, on one Redis, both listening on task type 1, as companies run
 * them: with the default settings their keys and locks are apart and every task fires on time; with a prefix they
 * were told to share, neither drops the other's tasks and the clash is named.
 */
@Tag("real-services")
@ExtendWith(OutputCaptureExtension.class)
class SharedRedisTests {

    private static final int TYPE = 1;

    private static final int TASKS = 100;

    @Test
    void twoApplicationsOnPostgreSqlWithDefaultKeysEachRunEveryTaskOfTheirOwnWithinASecondOfItsTime() {
        everyTaskRunsOnTimeWithDefaultKeys(TestBackend::postgreSql);
    }

    @Test
    void twoApplicationsOnMariaDbWithDefaultKeysEachRunEveryTaskOfTheirOwnWithinASecondOfItsTime() {
        everyTaskRunsOnTimeWithDefaultKeys(TestBackend::mariaDb);
    }

    @Test
    void twoApplicationsToldToShareAPrefixLeaveEachOthersTasksAloneAndSaySo(CapturedOutput output) {
        String shared = "delay-task-shared-" + UUID.randomUUID().toString().substring(0, 8);
        try (TestBackend first = TestBackend.postgreSql(); TestBackend second = TestBackend.mariaDb()) {
            try {
                run(first, shared, (a) -> run(second, shared, (b) -> {
                    // each hears of the tasks the other puts off for it
                    await().atMost(Duration.ofSeconds(10)).until(() -> a.getBean(WakeUps.class).listening()
                            && b.getBean(WakeUps.class).listening());
                    // due at the same instants in both: each claim of one application takes the other's task too
                    long start = System.currentTimeMillis() + 1500;
                    Map<Long, Long> dueA = addTasks(a, start);
                    Map<Long, Long> dueB = addTasks(b, start);
                    try {
                        await().atMost(Duration.ofSeconds(30)).until(() -> ran(a).keySet().containsAll(dueA.keySet())
                                && ran(b).keySet().containsAll(dueB.keySet()));
                    }
                    catch (ConditionTimeoutException ex) {
                        throw new AssertionError("Not run within 30 s: " + whereInRedis(a, shared, dueA, ran(a))
                                + " of the first application's tasks, " + whereInRedis(a, shared, dueB, ran(b))
                                + " of the second's", ex);
                    }
                    assertThat(ran(a)).containsOnlyKeys(dueA.keySet());
                    assertThat(ran(b)).containsOnlyKeys(dueB.keySet());
                }));
            }
            finally {
                first.deleteRedisKeys(shared);
            }
        }
        assertThat(output.getAll()).contains("another application uses the same Redis keys");
    }

    @Test
    void anIdleApplicationRunsItsTaskThatAnotherOnTheSharedPrefixClaimedFirst(CapturedOutput output) {
        String shared = "delay-task-shared-" + UUID.randomUUID().toString().substring(0, 8);
        try (TestBackend first = TestBackend.postgreSql(); TestBackend second = TestBackend.mariaDb()) {
            try {
                run(second, shared, (owner) -> {
                    await().atMost(Duration.ofSeconds(10)).until(() -> owner.getBean(WakeUps.class).listening());
                    // added where the owner does not hear of it, so that it stays idle, next looking after the idle
                    // poll interval (30 s)
                    long[] taskId = new long[1];
                    second.applicationRunner()
                        .withPropertyValues("delay-task.redis.key-prefix=" + shared,
                                "delay-task.listener.wake-ups=false", "delay-task.refuse-conflicting-settings=false")
                        .run((adder) -> taskId[0] = adder.getBean(DelayTaskService.class)
                            .addTask(DelayTask.builder(TYPE).executeAt(java.time.Instant.now()).build()));
                    // the other application starts with a look at its queue: it claims the owner's task first
                    run(first, shared, (other) -> {
                        await().atMost(Duration.ofSeconds(10))
                            .until(() -> output.getAll().contains("another application uses the same Redis keys"));
                        await().atMost(Duration.ofSeconds(10)).until(() -> ran(owner).containsKey(taskId[0]));
                        assertThat(ran(other)).isEmpty();
                    });
                });
            }
            finally {
                first.deleteRedisKeys(shared);
            }
        }
    }

    /**
     * Two applications that each put off the other's tasks took them from each other every second, for good (CI saw
     * tasks still bouncing after 30 s): the one that put a task off looked at the queue at the task's new time from
     * its claim's answer, a millisecond or more before the owner woken by the wake-up on its own reading of Redis's
     * clock.
     */
    @Test
    void anApplicationThatPutsOffAnotherApplicationsTaskLooksAtTheQueueOnlyAfterTheOwnersTurn() {
        String shared = "delay-task-shared-" + UUID.randomUUID().toString().substring(0, 8);
        try (TestBackend first = TestBackend.postgreSql(); TestBackend second = TestBackend.mariaDb()) {
            try {
                // neither listens: the test claims as the other application's dispatcher would
                second.applicationRunner()
                    .withPropertyValues("delay-task.redis.key-prefix=" + shared, "delay-task.listener.enabled=false")
                    .run((owner) -> {
                        owner.getBean(DelayTaskService.class).addTask(DelayTask.builder(TYPE).build());
                        first.applicationRunner()
                            .withPropertyValues("delay-task.redis.key-prefix=" + shared,
                                    "delay-task.listener.enabled=false")
                            .run((other) -> {
                                Claims claims = other.getBean(Claims.class);
                                QueueId queue = new QueueId(TYPE, 0);
                                long started = System.nanoTime();
                                Claims.Batch putOff = claims.claim(queue, 10);
                                assertThat(putOff.taken()).isOne();
                                assertThat(putOff.tasks()).isEmpty();
                                Claims.Batch next = claims.claim(queue, 10);
                                long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                                assertThat(next.taken()).isZero();
                                // due again for its owner a second after the first claim; this one looks 100 ms
                                // after that (the owner's turn came at 1000 ms: a margin of 50 covers the time the
                                // claims took outside Redis)
                                assertThat(next.nextDueInMillis() + elapsed).isGreaterThanOrEqualTo(1050)
                                    .isLessThanOrEqualTo(1100 + elapsed);
                            });
                    });
            }
            finally {
                first.deleteRedisKeys(shared);
            }
        }
    }

    private void everyTaskRunsOnTimeWithDefaultKeys(Supplier<TestBackend> backends) {
        try (TestBackend first = backends.get(); TestBackend second = backends.get()) {
            List<String> prefixes = new ArrayList<>();
            try {
                run(first, "", (a) -> run(second, "", (b) -> {
                    prefixes.add(a.getBean(RedisKeys.class).prefix());
                    prefixes.add(b.getBean(RedisKeys.class).prefix());
                    long start = System.currentTimeMillis() + 1500;
                    Map<Long, Long> dueA = addTasks(a, start);
                    Map<Long, Long> dueB = addTasks(b, start);
                    await().atMost(Duration.ofSeconds(20)).until(() -> ran(a).keySet().containsAll(dueA.keySet())
                            && ran(b).keySet().containsAll(dueB.keySet()));
                    assertOnTime(dueA, ran(a));
                    assertOnTime(dueB, ran(b));
                }));
                assertThat(prefixes).doesNotHaveDuplicates().allMatch((prefix) -> prefix.startsWith("delay-task:"));
            }
            finally {
                prefixes.forEach(first::deleteRedisKeys);
            }
        }
    }

    private static void assertOnTime(Map<Long, Long> due, Map<Long, Long> ran) {
        assertThat(ran).containsOnlyKeys(due.keySet());
        due.forEach((id, at) -> assertThat(ran.get(id)).as("start of task %s, due at %s", id, at)
            .isBetween(at, at + 1000));
    }

    private static void run(TestBackend backend, String keyPrefix,
            org.springframework.boot.test.context.runner.ContextConsumer<AssertableApplicationContext> test) {
        ApplicationContextRunner runner = backend.applicationRunner()
            .withUserConfiguration(Recorder.class)
            .withPropertyValues("delay-task.redis.key-prefix=" + keyPrefix);
        runner.run(test);
    }

    /** Tasks due one every 20 ms from {@code start} on (both applications are running by then), by id. */
    private static Map<Long, Long> addTasks(AssertableApplicationContext context, long start) {
        DelayTaskService service = context.getBean(DelayTaskService.class);
        List<DelayTask> tasks = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            tasks.add(DelayTask.builder(TYPE).executeAt(java.time.Instant.ofEpochMilli(start + i * 20L)).build());
        }
        List<Long> ids = service.addTasks(tasks);
        Map<Long, Long> due = new ConcurrentHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            due.put(ids.get(i), tasks.get(i).getExecuteTime());
        }
        return due;
    }

    /** Where Redis holds each task that did not run: in which of its queue's sets, and with what score. */
    private static String whereInRedis(AssertableApplicationContext context, String prefix, Map<Long, Long> due,
            Map<Long, Long> ran) {
        StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
        Map<Long, String> where = new TreeMap<>();
        due.keySet().stream().filter((id) -> !ran.containsKey(id)).forEach((id) -> {
            StringBuilder sets = new StringBuilder("due " + due.get(id) + ":");
            for (String set : List.of("future", "ready", "inflight")) {
                Double score = redis.opsForZSet()
                    .score(prefix + ":{" + TYPE + ":0}:" + set, Long.toString(id));
                if (score != null) {
                    sets.append(' ').append(set).append(' ').append(score.longValue());
                }
            }
            where.put(id, sets.toString());
        });
        return where + " (now " + System.currentTimeMillis() + ")";
    }

    private static Map<Long, Long> ran(AssertableApplicationContext context) {
        return context.getBean(Recorder.class).started;
    }

    @Configuration(proxyBeanMethods = false)
    static class Recorder {

        final Map<Long, Long> started = new ConcurrentHashMap<>();

        @DelayTaskListener(taskType = TYPE)
        void run(DelayTask task) {
            this.started.putIfAbsent(task.getTaskId(), System.currentTimeMillis());
        }

    }

}
