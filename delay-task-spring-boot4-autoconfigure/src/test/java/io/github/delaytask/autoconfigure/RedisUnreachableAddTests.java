package io.github.delaytask.autoconfigure;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.RedisTaskQueues;
import io.github.delaytask.testsupport.FreePort;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adds while Redis cannot be reached (nothing listens on its port): the tasks are stored, and a batch of many queues
 * costs one Redis call that fails rather than one per queue, each of which could wait a whole command timeout.
 */
class RedisUnreachableAddTests {

    private TestBackend backend;

    @BeforeEach
    void createBackend() {
        this.backend = TestBackend.embedded();
    }

    @AfterEach
    void closeBackend() {
        this.backend.close();
    }

    @Test
    void aBatchOfFiveQueuesIsStoredAndTriesRedisOnce() {
        this.backend.applicationRunner()
            .withUserConfiguration(CountingQueuesConfiguration.class)
            // the add returns after the hand-off's bound, well before the hand-off tries the failed batch again (a
            // second later): with a bound of that second too, a busy machine sometimes counted the retry
            .withPropertyValues("spring.data.redis.port=" + FreePort.find(), "spring.data.redis.timeout=2s",
                    "delay-task.redis.hand-off-timeout=100ms", "delay-task.listener.enabled=false")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                List<DelayTask> batch = new ArrayList<>();
                for (int type = 1; type <= 5; type++) {
                    // due within a second: its caller waits for the hand-off's first try
                    batch.add(DelayTask.builder(type).delay(Duration.ofMillis(500)).build());
                }
                List<Long> ids = context.getBean(DelayTaskService.class).addTasks(batch);
                assertThat(ids).hasSize(5).doesNotContainNull();
                assertThat(new JdbcTemplate(context.getBean(DataSource.class))
                    .queryForObject("SELECT COUNT(*) FROM taskinfo", Long.class)).isEqualTo(5);
                assertThat(context.getBean(CountingQueues.class).calls).as("calls by the time the add returned")
                    .hasValue(1);
            });
    }

    @Test
    void tasksWaitingForRedisDoNotKeepTheirParametersInMemory() {
        this.backend.applicationRunner()
            .withUserConfiguration(CountingQueuesConfiguration.class)
            .withPropertyValues("spring.data.redis.port=" + FreePort.find(), "spring.data.redis.timeout=2s",
                    "delay-task.redis.hand-off-timeout=100ms", "delay-task.listener.enabled=false")
            .run((context) -> {
                WeakReference<byte[]> parameters = addTaskWithLargeParameters(context.getBean(DelayTaskService.class));
                // the task waits to be handed to Redis, which is tried again every second (its add, due in a minute,
                // returned at its commit)
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> context.getBean(CountingQueues.class).calls.get() > 0);
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
                    System.gc();
                    return parameters.get() == null;
                });
            });
    }

    /** Due within the preload window, so handed to Redis at once; parameters the test keeps no hold of. */
    private static WeakReference<byte[]> addTaskWithLargeParameters(DelayTaskService service) {
        byte[] parameters = new byte[60_000];
        service.addTask(DelayTask.builder(1).delay(Duration.ofMinutes(1)).parameters(parameters).build());
        return new WeakReference<>(parameters);
    }

    @Configuration(proxyBeanMethods = false)
    static class CountingQueuesConfiguration {

        @Bean
        CountingQueues countingQueues(StringRedisTemplate redis, RedisKeys keys) {
            return new CountingQueues(redis, keys);
        }

    }

    /** The starter's queues, counting the calls that hand new tasks to Redis (one for all the queues of a batch). */
    static class CountingQueues extends RedisTaskQueues {

        final AtomicInteger calls = new AtomicInteger();

        CountingQueues(StringRedisTemplate redis, RedisKeys keys) {
            super(redis, keys);
        }

        @Override
        public void register(java.util.Collection<QueueId> queues) {
            this.calls.incrementAndGet();
            super.register(queues);
        }

        @Override
        public void add(QueueId queue, Map<Long, Long> executeTimes) {
            this.calls.incrementAndGet();
            super.add(queue, executeTimes);
        }

        @Override
        public java.util.Set<QueueId> addAll(Map<QueueId, Map<Long, Long>> executeTimes,
                java.util.Collection<QueueId> alsoRegister, int chunk, Duration wait) {
            this.calls.incrementAndGet();
            return super.addAll(executeTimes, alsoRegister, chunk, wait);
        }

    }

}
