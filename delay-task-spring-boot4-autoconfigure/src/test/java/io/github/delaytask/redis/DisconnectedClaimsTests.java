package io.github.delaytask.redis;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.testsupport.StallingRedis;
import io.github.delaytask.testsupport.VolatileRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Claims on one Redis server whose process ended, with Lettuce's command timeout of a minute and a claim timeout of
 * 30 s: Lettuce holds what is written while it reconnects, so a claim would wait the claim timeout; it fails at once
 * instead, so that the database takes its queues over at once, and claims again once Redis is back.
 */
class DisconnectedClaimsTests {

    private static final QueueId QUEUE = new QueueId(1, 0);

    private static final Duration LEASE = Duration.ofSeconds(30);

    private VolatileRedis server;

    private LettuceConnectionFactory factory;

    private StringRedisTemplate redis;

    @BeforeEach
    void start() {
        this.server = VolatileRedis.start();
        this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", this.server.port()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofMinutes(1)).build());
        this.factory.afterPropertiesSet();
        this.factory.start();
        this.redis = new StringRedisTemplate(this.factory);
    }

    @AfterEach
    void stop() {
        this.factory.destroy();
        this.server.close();
    }

    @Test
    void aClaimWhileTheConnectionIsDownFailsAtOnceWithAClaimTimeoutAndClaimsAgainOnceRedisIsBack() {
        RedisTaskQueues queues = new RedisTaskQueues(this.redis, new RedisKeys("disconnected-" + UUID.randomUUID()));
        queues.setClaimTimeout(Duration.ofSeconds(30));
        queues.schedule(QUEUE, 1, System.currentTimeMillis() - 1_000);
        assertThat(queues.claim(QUEUE, 0, LEASE).taskIds()).isEmpty();
        this.server.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> Boolean.FALSE.equals(connected()));

        // before, the claim waited for the reconnection until its claim timeout: 30 s
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            assertThatExceptionOfType(RedisConnectionFailureException.class)
                .isThrownBy(() -> queues.claimAll(Map.of(QUEUE, 1, new QueueId(2, 0), 1), LEASE, Set.of()))
                .withMessageContaining("connection to Redis is down");
            assertThatExceptionOfType(RedisConnectionFailureException.class)
                .isThrownBy(() -> queues.claim(QUEUE, 1, LEASE));
        });

        this.server.startAgain();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            queues.claim(QUEUE, 0, LEASE);
            return true;
        });
    }

    @Test
    void withoutAClaimTimeoutAClaimWaitsForTheReconnection() {
        RedisTaskQueues queues = new RedisTaskQueues(this.redis, new RedisKeys("disconnected-" + UUID.randomUUID()));
        queues.schedule(QUEUE, 1, System.currentTimeMillis() - 1_000);
        assertThat(queues.claim(QUEUE, 0, LEASE).taskIds()).isEmpty();
        this.server.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> Boolean.FALSE.equals(connected()));
        QueueId other = new QueueId(2, 0);
        CompletableFuture<TaskQueues.Claims> claim = new CompletableFuture<>();
        new Thread(() -> claim.complete(queues.claimAll(Map.of(QUEUE, 1, other, 1), LEASE, Set.of()))).start();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> !claim.isDone());
        this.server.startAgain();
        // the server came back empty: the claims are answered, with nothing to claim
        assertThat(claim).as("held until Lettuce reconnected, then answered").succeedsWithin(Duration.ofSeconds(60))
            .satisfies((claims) -> {
                assertThat(claims.failed()).isEmpty();
                assertThat(claims.claimed()).containsOnlyKeys(QUEUE, other);
            });
    }

    @Test
    void aClaimRoundWaitingWhenTheConnectionGoesDownEndsThenWithItsClaimsFailedAndNotSentAgain() {
        try (StallingRedis stalling = StallingRedis.start()) {
            RedisTaskQueues queues = new RedisTaskQueues(stalling.throughProxy(), stalling.keys());
            queues.setClaimTimeout(Duration.ofSeconds(30));
            RedisTaskQueues directly = new RedisTaskQueues(stalling.direct(), stalling.keys());
            QueueId other = new QueueId(2, 0);
            directly.schedule(QUEUE, 1, System.currentTimeMillis() - 1_000);
            assertThat(queues.claim(QUEUE, 0, LEASE).taskIds()).isEmpty();
            stalling.stall();
            CompletableFuture<TaskQueues.Claims> round = new CompletableFuture<>();
            new Thread(() -> round.complete(queues.claimAll(Map.of(QUEUE, 1, other, 1), LEASE, Set.of()))).start();
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !round.isDone());
            stalling.cut();
            // before, the round waited its claim timeout, 30 s, and its claims were only late
            assertThat(round).succeedsWithin(Duration.ofSeconds(10)).satisfies((claims) -> {
                assertThat(claims.claimed()).isEmpty();
                assertThat(claims.failed()).containsOnlyKeys(QUEUE, other);
                assertThat(claims.failed().values()).allMatch(RedisConnectionFailureException.class::isInstance);
            });
            stalling.resume();
            stalling.restore();
            // once reconnected, the claims given up are not sent again: Lettuce would send them before this one
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                queues.claim(other, 0, LEASE);
                return true;
            });
            assertThat(directly.inFlightAfter(QUEUE, 0, 10)).as("tasks in flight").isEmpty();
            assertThat(directly.claim(QUEUE, 1, LEASE).taskIds()).as("still due").containsExactly(1L);
        }
    }

    private Boolean connected() {
        return this.redis.execute((RedisCallback<Boolean>) AsyncScripts::connected);
    }

}
