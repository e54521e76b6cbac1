package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.time.Instant;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.redis.RecoveryMarkers;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The feed against a hand-off that Redis holds up: on an embedded Redis of this test's own, which it pauses
 * ({@code CLIENT PAUSE} would hold up every client of a shared Redis).
 */
class FeedRaceTests {

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeEach
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(AbstractFeedTests.Listeners.class)
            .withPropertyValues("delay-task.preload-window=2s", "delay-task.feed-interval=200ms",
                    "delay-task.reload-interval=1h", "delay-task.redis.hand-off-timeout=200ms");
    }

    @AfterEach
    void stopBackend() {
        this.backend.close();
    }

    @Test
    void aTaskMovedJustBeyondTheWindowWhileRedisStallsIsNotTakenOutOfRedisAfterTheFeedBroughtItIn() {
        this.runner.run((context) -> {
            DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);
            RecoveryMarkers markers = context.getBean(RecoveryMarkers.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.lastReload() != null
                    && RecoveryMarkers.feedHorizon(markers.feedMarker()) != null);
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(AbstractFeedTests.RECORDED).delay(Duration.ofSeconds(10)).build());
            // the move's write waits for Redis longer than the hand-off's bound, and is tried again a second later,
            // when the feed may have brought the task in at its new time
            context.getBean(StringRedisTemplate.class).execute((RedisCallback<Object>) (RedisConnection connection) ->
                    connection.execute("CLIENT", "PAUSE".getBytes(), "400".getBytes()));
            // just beyond the 2 s window: the feed brings the task in within a second or so
            Instant movedTo = Instant.now().plusMillis(2300);
            assertThat(service.rescheduleTask(id, movedTo)).isTrue();
            AbstractFeedTests.Listeners listeners = context.getBean(AbstractFeedTests.Listeners.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runs.containsKey(id));
            assertThat(listeners.runs.get(id)).hasSize(1)
                .allSatisfy((ranAt) -> assertThat(ranAt).isGreaterThanOrEqualTo(movedTo.toEpochMilli()));
        });
    }

}
