package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

import io.github.delaytask.redis.WakeUps;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.VolatileRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Stopping while Redis is down, on a Redis of the test's own that it stops: since the database dispatches while
 * Redis is down, an application may run, and stop, in that state.
 */
class RedisDownStopTests {

    private TestBackend backend;

    private VolatileRedis redis;

    @BeforeEach
    void createBackend() {
        this.backend = TestBackend.embedded();
        this.redis = VolatileRedis.start();
    }

    @AfterEach
    void closeBackend() {
        try {
            this.redis.close();
        }
        finally {
            this.backend.close();
        }
    }

    @Test
    void aWakeUpSubscriptionMadeWhileRedisIsDownStopsWithoutWaitingForRedis() {
        this.backend.applicationRunner()
            .withPropertyValues("spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=1s",
                    "delay-task.listener.enabled=false")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                // connected once, so that the subscription's container, not the connection factory, meets the outage
                assertThat(context.getBean(StringRedisTemplate.class).hasKey("any")).isFalse();
                this.redis.stop();
                WakeUps wakeUps = context.getBean(WakeUps.class);
                wakeUps.listen((queue, executeTime) -> {
                });
                // the subscription tries Redis again and again until Redis answers
                await().atMost(Duration.ofSeconds(20)).until(RedisDownStopTests::subscriptionRetries);
                // before, the stop waited for the container's start, within which it tried again: here, until Redis
                // was back
                assertTimeoutPreemptively(Duration.ofSeconds(20), wakeUps::stopListening,
                        "the stop of a wake-up subscription while Redis is down");
                assertTimeoutPreemptively(Duration.ofSeconds(30),
                        () -> ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close(),
                        "the stop of the application while Redis is down");
            });
    }

    /**
     * Whether the subscription failed and tries again: within the container's start, on the thread that subscribes
     * (as before), or later on a thread of its own, once that start has returned.
     */
    private static boolean subscriptionRetries() {
        Map<Thread, StackTraceElement[]> threads = Thread.getAllStackTraces();
        boolean retriesInStart = threads.entrySet().stream()
            .filter((entry) -> entry.getKey().getName().equals("delay-task-wake-ups-subscribe"))
            .anyMatch((entry) -> Arrays.stream(entry.getValue())
                .anyMatch((frame) -> frame.getMethodName().equals("potentiallyRecover")));
        boolean startReturned = threads.keySet().stream()
            .noneMatch((thread) -> thread.getName().equals("delay-task-wake-ups-subscribe"));
        boolean retryThread = threads.keySet().stream()
            .anyMatch((thread) -> thread.getName().matches("delay-task-wake-ups-\\d+"));
        return retriesInStart || (startReturned && retryThread);
    }

}
