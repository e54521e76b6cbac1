package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.redis.WakeUps;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.types.RedisClientInfo;

import static org.awaitility.Awaitility.await;

/**
 * The wake-up subscription, on an embedded Redis of its own (the test cuts every subscriber's connection): wake-ups
 * sent while an instance was not subscribed reach nobody, so each subscription, the first and each one after a lost
 * connection, makes the instance look at its queues.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WakeUpSubscriptionTests {

    static final int RECORDED = 71;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        // an idle queue is looked at once a minute: only a wake-up, or a look after subscribing, runs a task sooner
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.listener.idle-poll-interval=60s");
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @Test
    void tasksAddedElsewhereWhileTheSubscriptionWasCutRunAtOnceNotAtTheNextLookAtTheIdleQueue() {
        this.runner.run((consumer) -> {
            WakeUps wakeUps = consumer.getBean(WakeUps.class);
            await().atMost(Duration.ofSeconds(10)).until(wakeUps::listening);
            Listeners listeners = consumer.getBean(Listeners.class);
            StringRedisTemplate redis = consumer.getBean(StringRedisTemplate.class);
            this.runner.withPropertyValues("delay-task.listener.enabled=false").run((producer) -> {
                DelayTaskService service = producer.getBean(DelayTaskService.class);
                for (int i = 0; i < 10; i++) {
                    // the add's wake-up goes out while the consumer reconnects, if it is quick enough: each round
                    // has a fair chance to be heard by nobody
                    redis.execute((RedisCallback<Object>) (connection) -> killSubscribers(connection));
                    long id = service.addTask(DelayTask.builder(RECORDED).build());
                    await().atMost(Duration.ofSeconds(5)).until(() -> listeners.ran.contains(id));
                    await().atMost(Duration.ofSeconds(10)).until(wakeUps::listening);
                }
            });
        });
    }

    /** Cut the connection of every subscriber: the consumer's subscription is the only one on this Redis. */
    private static Object killSubscribers(RedisConnection connection) {
        for (RedisClientInfo client : connection.serverCommands().getClientList()) {
            if (Integer.parseInt(client.get("sub")) > 0) {
                String address = client.getAddressPort();
                int colon = address.lastIndexOf(':');
                connection.serverCommands()
                    .killClient(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
            }
        }
        return null;
    }

    static class Listeners {

        final Set<Long> ran = ConcurrentHashMap.newKeySet();

        @DelayTaskListener(taskType = RECORDED)
        void record(DelayTask task) {
            this.ran.add(task.getTaskId());
        }

    }

}
