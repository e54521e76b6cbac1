package io.github.delaytask.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.testsupport.StallingRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Claims on one Redis server that stops answering, reached through a proxy that holds what either side sends, with
 * Lettuce's default command timeout of a minute and a claim timeout of 300 ms: a claim round waits no longer than the
 * claim timeout, and the answer that comes later is a later round's claim, as far as its count goes, the rest made
 * due again, off the claiming thread.
 */
class LateClaimsTests {

    private static final QueueId QUEUE = new QueueId(1, 0);

    private static final Duration LEASE = Duration.ofSeconds(30);

    private StallingRedis redis;

    private RedisTaskQueues throughProxy;

    private RedisTaskQueues directly;

    @BeforeEach
    void connect() {
        this.redis = StallingRedis.start();
        this.throughProxy = new RedisTaskQueues(this.redis.throughProxy(), this.redis.keys());
        this.throughProxy.setClaimTimeout(Duration.ofMillis(300));
        this.directly = new RedisTaskQueues(this.redis.direct(), this.redis.keys());
    }

    @AfterEach
    void close() {
        this.redis.close();
    }

    @Test
    void aClaimThatRedisDoesNotAnswerWithinTheClaimTimeoutIsTakenByALaterRoundAsFarAsItsCountGoes() {
        long now = System.currentTimeMillis();
        this.directly.schedule(QUEUE, 1, now - 3_000);
        this.directly.schedule(QUEUE, 2, now - 2_000);
        this.directly.schedule(QUEUE, 3, now - 1_000);
        // a first claim loads the script, so that the stalled one is not refused for want of it
        assertThat(this.throughProxy.claim(QUEUE, 0, LEASE).taskIds()).isEmpty();
        this.redis.stall();
        CompletableFuture<TaskQueues.Claims> round = CompletableFuture
            .supplyAsync(() -> this.throughProxy.claimAll(Map.of(QUEUE, 2), LEASE, Set.of()));
        // Lettuce's command timeout is a minute: the round must come back after the claim timeout
        TaskQueues.Claims unanswered = round.orTimeout(10, TimeUnit.SECONDS).join();
        assertThat(unanswered.claimed()).isEmpty();
        assertThat(unanswered.failed().get(QUEUE)).isInstanceOf(TaskQueues.ClaimNotAnswered.class);
        assertThat(this.throughProxy.claimAll(Map.of(QUEUE, 2), LEASE, Set.of()).failed().get(QUEUE))
            .as("while its answer is still to come, the queue is not claimed again")
            .isInstanceOf(TaskQueues.ClaimNotAnswered.class);
        this.redis.resume();
        // the answer took ids 1 and 2; a round that asks for one takes id 1 and makes id 2 due again
        TaskQueues.Claims later = await().atMost(Duration.ofSeconds(10))
            .until(() -> this.throughProxy.claimAll(Map.of(QUEUE, 1), LEASE, Set.of()),
                    (claims) -> claims.claimed().containsKey(QUEUE));
        assertThat(later.late()).containsExactly(QUEUE);
        assertThat(later.claimed().get(QUEUE).taskIds()).containsExactly(1L);
        // handed back off the claiming thread, which does not wait for a server that was late
        await().atMost(Duration.ofSeconds(10))
            .until(() -> this.directly.inFlightAfter(QUEUE, 0, 10).keySet(), (ids) -> ids.equals(Set.of(1L)));
        assertThat(this.directly.claim(QUEUE, 10, LEASE).taskIds()).containsExactlyInAnyOrder(2L, 3L);
    }

    @Test
    void aLateAnswerOfAQueueNotClaimedSinceIsMadeDueAgain() {
        long now = System.currentTimeMillis();
        this.directly.schedule(QUEUE, 1, now - 1_000);
        assertThat(this.throughProxy.claim(QUEUE, 0, LEASE).taskIds()).isEmpty();
        this.redis.stall();
        assertThat(this.throughProxy.claimAll(Map.of(QUEUE, 5), LEASE, Set.of()).failed().get(QUEUE))
            .isInstanceOf(TaskQueues.ClaimNotAnswered.class);
        this.redis.resume();
        await().atMost(Duration.ofSeconds(10))
            .until(() -> this.directly.inFlightAfter(QUEUE, 0, 10).containsKey(1L));
        // a round of other queues (the database dispatches this one meanwhile) takes the answer and hands it back
        TaskQueues.Claims others = this.throughProxy.claimAll(Map.of(new QueueId(2, 0), 1), LEASE, Set.of());
        assertThat(others.claimed()).doesNotContainKey(QUEUE);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.directly.inFlightAfter(QUEUE, 0, 10).isEmpty());
        assertThat(this.directly.claim(QUEUE, 10, LEASE).taskIds()).containsExactly(1L);
    }

    @Test
    void aQueueWithAClusterWideRateKeepsItsLateAnswerForItsOwnRoundsWhoseLimitCountedIt() {
        long now = System.currentTimeMillis();
        this.directly.schedule(QUEUE, 1, now - 2_000);
        this.directly.schedule(QUEUE, 2, now - 1_000);
        this.throughProxy.limitRate(QUEUE, 2, Duration.ofMinutes(1));
        assertThat(this.throughProxy.claim(QUEUE, 0, LEASE).taskIds()).isEmpty();
        this.redis.stall();
        CompletableFuture<TaskQueues.Claims> round = CompletableFuture
            .supplyAsync(() -> this.throughProxy.claimAll(Map.of(QUEUE, 5), LEASE, Set.of()));
        assertThat(round.orTimeout(10, TimeUnit.SECONDS).join().failed().get(QUEUE))
            .as("bounded by the claim timeout like any other")
            .isInstanceOf(TaskQueues.ClaimNotAnswered.class);
        this.redis.resume();
        await().atMost(Duration.ofSeconds(10))
            .until(() -> this.directly.inFlightAfter(QUEUE, 0, 10).keySet(), (ids) -> ids.equals(Set.of(1L, 2L)));
        // a round of another queue leaves the answer to this queue's rounds: the rate counted both ids already
        assertThat(this.throughProxy.claimAll(Map.of(new QueueId(2, 0), 1), LEASE, Set.of()).claimed())
            .doesNotContainKey(QUEUE);
        TaskQueues.Claims first = this.throughProxy.claimAll(Map.of(QUEUE, 1), LEASE, Set.of());
        assertThat(first.late()).containsExactly(QUEUE);
        assertThat(first.claimed().get(QUEUE).taskIds()).containsExactly(1L);
        TaskQueues.Claims second = this.throughProxy.claimAll(Map.of(QUEUE, 1), LEASE, Set.of());
        assertThat(second.late()).as("the rest of the answer, not a new claim the rate would refuse")
            .containsExactly(QUEUE);
        assertThat(second.claimed().get(QUEUE).taskIds()).containsExactly(2L);
    }

}
