package io.github.delaytask.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.testsupport.StallingRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Wake-ups sent through a Redis that stalls, reached through a proxy that holds what either side sends, with
 * Lettuce's default command timeout of a minute; heard by an instance that reaches Redis directly.
 */
class WakeUpsTests {

    private static final QueueId FIRST = new QueueId(1, 0);

    private static final QueueId SECOND = new QueueId(2, 0);

    private StallingRedis redis;

    private WakeUps sender;

    private WakeUps receiver;

    @BeforeEach
    void connect() {
        this.redis = StallingRedis.start();
        RedisKeys keys = this.redis.keys();
        this.sender = new WakeUps(this.redis.throughProxy(), keys, Duration.ofSeconds(30), Clock.systemUTC());
        this.receiver = new WakeUps(this.redis.direct(), keys, Duration.ofSeconds(30), Clock.systemUTC());
    }

    @AfterEach
    void close() {
        try {
            this.sender.close();
            this.receiver.close();
        }
        finally {
            this.redis.close();
        }
    }

    @Test
    void aPublishWaitsForNoRedisThatStallsAndItsWakeUpsAreHeardOnceRedisAnswers() {
        Set<QueueId> heard = ConcurrentHashMap.newKeySet();
        this.receiver.listen((queue, executeTime) -> heard.add(queue));
        await().atMost(Duration.ofSeconds(10)).until(this.receiver::listening);
        this.redis.stall();
        long now = System.currentTimeMillis();
        // as the hand-off of new tasks publishes: it must not wait the command timeout of a minute
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
            this.sender.publish(Map.of(FIRST, now));
            this.sender.publish(Map.of(SECOND, now + 100));
        });
        await().atMost(Duration.ofSeconds(5)).until(publishing::isDone);
        assertThat(heard).as("heard while Redis stalls").isEmpty();
        this.redis.resume();
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.containsAll(Set.of(FIRST, SECOND)));
    }

    @Test
    void wakeUpsPublishedBeforeCloseStillGoOut() {
        Set<QueueId> heard = ConcurrentHashMap.newKeySet();
        this.receiver.listen((queue, executeTime) -> heard.add(queue));
        await().atMost(Duration.ofSeconds(10)).until(this.receiver::listening);
        this.redis.stall();
        long now = System.currentTimeMillis();
        this.sender.publish(Map.of(FIRST, now));
        // the sender took the first and waits for Redis: the second waits for the sender, as the last adds of an
        // application that stops do
        await().atMost(Duration.ofSeconds(5)).until(() -> this.sender.unsent() == 0);
        this.sender.publish(Map.of(SECOND, now + 100));
        assertThat(this.sender.unsent()).isEqualTo(1);
        this.sender.close();
        this.redis.resume();
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.containsAll(Set.of(FIRST, SECOND)));
    }

}
