package io.github.delaytask.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.RedisTaskQueues;
import io.github.delaytask.store.StoredTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The decisions of the hand-off to Redis, over queues whose writes the test holds up, fails or records: who waits
 * for Redis, in which order writes reach it, and whom a write Redis does not take wakes.
 */
class RedisHandOffTests {

    private static final long NOW = 1_800_000_000_000L;

    private static final QueueId ORDERS = new QueueId(1, 0);

    private static final QueueId MAILS = new QueueId(2, 0);

    private final Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);

    private final DueSignals signals = new DueSignals(this.clock, new ConsumedQueues(), null);

    /** What this instance's dispatcher heard: queue and time. */
    private final List<String> heard = new CopyOnWriteArrayList<>();

    private final HeldQueues queues = new HeldQueues();

    private RedisHandOff handOff;

    private RedisHandOff handOff(Duration bound) {
        this.signals.addListener((queue, executeTime) -> this.heard.add(queue + "@" + executeTime));
        this.handOff = new RedisHandOff(this.queues, this.signals, bound);
        return this.handOff;
    }

    @AfterEach
    void close() {
        this.queues.release();
        if (this.handOff != null) {
            this.handOff.close();
        }
    }

    @Test
    void anAddReturnsWhileRedisHoldsItsWriteAndWhatItReturnsWaitsForRedisToTakeIt() {
        RedisHandOff handOff = handOff(Duration.ofMinutes(1));
        this.queues.hold();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> handOff.add(List.of(task(1, ORDERS, NOW + 60_000))),
                "an add, Redis holding its write");
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> handOff.add(List.of(task(2, ORDERS, NOW)))
            .run());
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
        this.queues.release();
        await().atMost(Duration.ofSeconds(10)).until(waiting::isDone);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.queues.log.containsAll(List.of("add 1", "add 2")));
    }

    @Test
    void aCancelOfATaskWhoseAddDidNotWaitReachesRedisAfterTheAdd() {
        RedisHandOff handOff = handOff(Duration.ofMinutes(1));
        this.queues.hold();
        StoredTask task = task(1, ORDERS, NOW + 60_000);
        handOff.add(List.of(task));
        CompletableFuture<Void> cancel = CompletableFuture.runAsync(() -> handOff.remove(task));
        this.queues.release();
        await().atMost(Duration.ofSeconds(10)).until(cancel::isDone);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.queues.log.contains("remove 1"));
        assertThat(this.queues.log).containsSubsequence("add 1", "remove 1");
    }

    @Test
    void newTasksRedisRefusesWakeThisInstancesDispatcherAtTheirTimesOnceHoweverOftenTheyAreTriedAgain() {
        RedisHandOff handOff = handOff(Duration.ofMillis(100));
        this.queues.refuse();
        handOff.add(List.of(task(1, ORDERS, NOW + 5_000), task(2, ORDERS, NOW + 3_000), task(3, MAILS, NOW + 7_000)));
        // tried again a second later
        await().atMost(Duration.ofSeconds(10)).until(() -> this.queues.tries.get() >= 2);
        assertThat(this.heard).containsExactlyInAnyOrder(ORDERS + "@" + (NOW + 3_000), MAILS + "@" + (NOW + 7_000));
    }

    @Test
    void newTasksOfAQueueRedisDidNotTakeWakeThisInstancesDispatcherAtTheirTimeOnceHoweverOftenTheyAreTriedAgain() {
        RedisHandOff handOff = handOff(Duration.ofMillis(100));
        this.queues.leaveOut(MAILS);
        handOff.add(List.of(task(1, ORDERS, NOW + 5_000), task(2, MAILS, NOW + 7_000)));
        // tried again a second later, and again
        await().atMost(Duration.ofSeconds(10)).until(() -> this.queues.tries.get() >= 3);
        // the queue Redis took: heard of as taken; the other as not taken: each once
        assertThat(this.heard).containsExactlyInAnyOrder(ORDERS + "@" + (NOW + 5_000), MAILS + "@" + (NOW + 7_000));
    }

    @Test
    void aMoveBeyondTheWindowThatRedisTakesOnlyOnALaterTryHasTheFeedReadTheWholeWindow() {
        RedisHandOff handOff = handOff(Duration.ofMillis(100));
        this.queues.refuseChangesOnce();
        handOff.moveOut(task(1, ORDERS, NOW + 3_600_000));
        await().atMost(Duration.ofSeconds(10)).until(() -> this.queues.log.contains("remove 1"));
        // the feed may have brought the task in at its new time between the tries
        await().atMost(Duration.ofSeconds(5)).until(this.signals::takeDroppedHandOffs);
    }

    @Test
    void removalsRedisTakesAtOnceAndCancelsTakenLateTellTheFeedNothing() {
        RedisHandOff handOff = handOff(Duration.ofMillis(100));
        handOff.moveOut(task(1, ORDERS, NOW + 3_600_000));
        this.queues.refuseChangesOnce();
        handOff.remove(task(2, ORDERS, NOW + 60_000));
        await().atMost(Duration.ofSeconds(10)).until(() -> this.queues.log.containsAll(List.of("remove 1",
                "remove 2")));
        assertThat(this.signals.takeDroppedHandOffs()).isFalse();
    }

    private static StoredTask task(long id, QueueId queue, long executeTime) {
        return new StoredTask(id, queue.taskType(), queue.priority(), executeTime, null, 0, 0, null);
    }

    /** Queues whose writes the test holds up until it lets them go, refuses, or leaves out for a queue. */
    private static final class HeldQueues extends RedisTaskQueues {

        final List<String> log = new CopyOnWriteArrayList<>();

        final AtomicInteger tries = new AtomicInteger();

        private volatile CountDownLatch held = new CountDownLatch(0);

        private volatile boolean refusing;

        private volatile QueueId leftOut;

        private final AtomicInteger changeRefusals = new AtomicInteger();

        HeldQueues() {
            super(new StringRedisTemplate(), new RedisKeys("hand-off-tests"));
        }

        void hold() {
            this.held = new CountDownLatch(1);
        }

        void release() {
            this.held.countDown();
        }

        void refuse() {
            this.refusing = true;
        }

        void leaveOut(QueueId queue) {
            this.leftOut = queue;
        }

        void refuseChangesOnce() {
            this.changeRefusals.set(1);
        }

        @Override
        public Set<QueueId> addAll(Map<QueueId, Map<Long, Long>> executeTimes, Collection<QueueId> alsoRegister,
                int chunk, Duration wait) {
            this.tries.incrementAndGet();
            awaitRelease();
            if (this.refusing) {
                throw new IllegalStateException("Redis refuses");
            }
            executeTimes.forEach((queue, times) -> {
                if (!queue.equals(this.leftOut)) {
                    times.keySet().forEach((id) -> this.log.add("add " + id));
                }
            });
            return (this.leftOut != null && executeTimes.containsKey(this.leftOut)) ? Set.of(this.leftOut) : Set.of();
        }

        @Override
        public List<Change> changeAll(List<Change> changes, Duration wait) {
            awaitRelease();
            if (this.changeRefusals.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
                throw new IllegalStateException("Redis refuses");
            }
            changes.forEach((change) -> this.log.add((change.removes() ? "remove " : "schedule ") + change.taskId()));
            return List.of();
        }

        private void awaitRelease() {
            try {
                this.held.await(1, TimeUnit.MINUTES);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

    }

}
