package io.github.delaytask.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.testsupport.TcpProxy;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Wake-ups sent through a Redis that stalls, reached through a proxy that holds what either side sends, with
 * Lettuce's default command timeout of a minute; heard by an instance that reaches Redis directly.
 */
class WakeUpsTests {

    private static final QueueId FIRST = new QueueId(1, 0);

    private static final QueueId SECOND = new QueueId(2, 0);

    private TestBackend backend;

    private TcpProxy proxy;

    private LettuceConnectionFactory stalling;

    private LettuceConnectionFactory direct;

    private WakeUps sender;

    private WakeUps receiver;

    @BeforeEach
    void connect() {
        this.backend = TestBackend.embedded();
        this.proxy = TcpProxy.start(this.backend.redisHost(), this.backend.redisPort());
        this.stalling = connect(this.proxy.port());
        this.direct = connect(this.backend.redisPort());
        RedisKeys keys = new RedisKeys(this.backend.keyPrefix());
        this.sender = new WakeUps(new StringRedisTemplate(this.stalling), keys, Duration.ofSeconds(30),
                Clock.systemUTC());
        this.receiver = new WakeUps(new StringRedisTemplate(this.direct), keys, Duration.ofSeconds(30),
                Clock.systemUTC());
    }

    private LettuceConnectionFactory connect(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(this.backend.redisHost(), port));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    @AfterEach
    void close() {
        try {
            this.sender.close();
            this.receiver.close();
            this.proxy.close();
            this.stalling.destroy();
            this.direct.destroy();
        }
        finally {
            this.backend.close();
        }
    }

    @Test
    void aPublishWaitsForNoRedisThatStallsAndItsWakeUpsAreHeardOnceRedisAnswers() {
        Set<QueueId> heard = ConcurrentHashMap.newKeySet();
        this.receiver.listen((queue, executeTime) -> heard.add(queue));
        await().atMost(Duration.ofSeconds(10)).until(this.receiver::listening);
        this.proxy.stall();
        long now = System.currentTimeMillis();
        // as the hand-off of new tasks publishes: it must not wait the command timeout of a minute
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
            this.sender.publish(Map.of(FIRST, now));
            this.sender.publish(Map.of(SECOND, now + 100));
        });
        await().atMost(Duration.ofSeconds(5)).until(publishing::isDone);
        assertThat(heard).as("heard while Redis stalls").isEmpty();
        this.proxy.resume();
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.containsAll(Set.of(FIRST, SECOND)));
    }

    @Test
    void wakeUpsPublishedBeforeCloseStillGoOut() {
        Set<QueueId> heard = ConcurrentHashMap.newKeySet();
        this.receiver.listen((queue, executeTime) -> heard.add(queue));
        await().atMost(Duration.ofSeconds(10)).until(this.receiver::listening);
        this.proxy.stall();
        long now = System.currentTimeMillis();
        this.sender.publish(Map.of(FIRST, now));
        // the sender took the first and waits for Redis: the second waits for the sender, as the last adds of an
        // application that stops do
        await().atMost(Duration.ofSeconds(5)).until(() -> this.sender.unsent() == 0);
        this.sender.publish(Map.of(SECOND, now + 100));
        assertThat(this.sender.unsent()).isEqualTo(1);
        this.sender.close();
        this.proxy.resume();
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.containsAll(Set.of(FIRST, SECOND)));
    }

}
