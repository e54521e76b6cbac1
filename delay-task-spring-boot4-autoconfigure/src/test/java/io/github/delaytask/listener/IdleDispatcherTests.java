package io.github.delaytask.listener;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.RecoveryMarkers;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an instance whose listeners have nothing to do sends to Redis, counted by the server itself
 * ({@code INFO commandstats}, which counts the commands scripts run): an embedded Redis of this test alone, so that
 * nothing else is counted.
 */
class IdleDispatcherTests {

    static final int TYPE = 70;

    static final int QUEUES = 8;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeEach
    void createBackend() {
        this.backend = TestBackend.embedded();
        // the jobs once an hour, after the feed's first pass at start-up, and no purge: only the dispatcher talks to Redis
        // after that
        this.runner = this.backend.applicationRunner()
            .withBean(Listeners.class)
            .withPropertyValues("delay-task.listener.idle-poll-interval=200ms", "delay-task.listener.poll-interval=50ms",
                    "delay-task.refresh-interval=1h", "delay-task.reload-interval=1h", "delay-task.feed-interval=1h",
                    "delay-task.preload-window=2h",
                    "delay-task.history.purge-enabled=false");
    }

    @AfterEach
    void closeBackend() {
        this.backend.close();
    }

    @Test
    void anIdleInstanceLooksAtEachQueueWithOneScriptOfOneCommandAndSendsNothingElse() {
        this.runner.run((context) -> {
            awaitStartUpWork(context);
            // one more look at every queue, by which time the locks of that start-up work are released
            Map<String, Long> start = commandCalls(context);
            await().atMost(Duration.ofSeconds(10)).until(() -> delta(start, commandCalls(context), "evalsha") >= QUEUES);
            Map<String, Long> before = commandCalls(context);
            // three looks at each queue at least
            await().atMost(Duration.ofSeconds(20))
                .until(() -> delta(before, commandCalls(context), "evalsha") >= 3 * QUEUES);
            Map<String, Long> after = commandCalls(context);
            Map<String, Long> sent = new HashMap<>(after);
            sent.remove("info");
            sent.replaceAll((command, calls) -> calls - before.getOrDefault(command, 0L));
            sent.values().removeIf((calls) -> calls == 0);
            long looks = sent.get("evalsha");
            assertThat(sent).as("one script of one EXISTS per look, nothing else")
                .containsOnly(Map.entry("evalsha", looks), Map.entry("exists", looks));
        });
    }

    @Test
    void aTaskAddedToAnIdleQueueRunsAtOnceRatherThanAtTheNextLook() {
        this.runner.withPropertyValues("delay-task.listener.idle-poll-interval=1h").run((context) -> {
            awaitStartUpWork(context);
            Listeners listeners = context.getBean(Listeners.class);
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(TYPE).priority(3).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.ran.contains(id));
        });
    }

    /**
     * The first look at every queue, the recovery that marks them loaded in a Redis that started empty, and the
     * feed's first pass.
     */
    private static void awaitStartUpWork(AssertableApplicationContext context) {
        RecoveryMarkers markers = context.getBean(RecoveryMarkers.class);
        List<QueueId> listened = context.getBean(DelayTaskListenerEndpointRegistry.class).queues();
        assertThat(listened).hasSize(QUEUES);
        await().atMost(Duration.ofSeconds(10)).until(() -> markers.unloaded(listened).isEmpty());
        await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(DelayTaskJobs.class).lastReload() != null);
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
        return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
    }

    private static Map<String, Long> commandCalls(AssertableApplicationContext context) {
        Properties stats = context.getBean(StringRedisTemplate.class)
            .execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
        Map<String, Long> calls = new HashMap<>();
        stats.forEach((key, value) -> {
            String name = key.toString();
            if (name.startsWith("cmdstat_")) {
                String text = value.toString();
                int start = text.indexOf("calls=") + "calls=".length();
                calls.put(name.substring("cmdstat_".length()),
                        Long.parseLong(text.substring(start, text.indexOf(',', start))));
            }
        });
        return calls;
    }

    static class Listeners {

        final java.util.Set<Long> ran = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @DelayTaskListener(taskType = TYPE, priority = 0)
        void p0(DelayTask task) {
            this.ran.add(task.getTaskId());
        }

        @DelayTaskListener(taskType = TYPE, priority = 1)
        void p1(DelayTask task) {
            this.ran.add(task.getTaskId());
        }

        @DelayTaskListener(taskType = TYPE, priority = 2)
        void p2(DelayTask task) {
            this.ran.add(task.getTaskId());
        }

        @DelayTaskListener(taskType = TYPE, priority = 3)
        void p3(DelayTask task) {
            this.ran.add(task.getTaskId());
        }

        @DelayTaskListener(taskType = TYPE + 1, priority = 0)
        void q0(DelayTask task) {
            this.ran.add(task.getTaskId());
        }

        @DelayTaskListener(taskType = TYPE + 1, priority = 1)
        void q1(DelayTask task) {
            this.ran.add(task.getTaskId());
        }

        @DelayTaskListener(taskType = TYPE + 2, priority = 0)
        void r0(DelayTask task) {
            this.ran.add(task.getTaskId());
        }

        @DelayTaskListener(taskType = TYPE + 3, priority = 0)
        void s0(DelayTask task) {
            this.ran.add(task.getTaskId());
        }

    }

}
