package io.github.delaytask.health;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delaytask.fixtures.MovingClock;
import io.github.delaytask.core.QueueId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The decisions of {@link DelayTaskHealth} on probes the test controls and a clock it moves: how long a server may
 * fail before the status is {@code DOWN}, and that a probe that hangs never holds up a check. The health tests of
 * each Boot line run it on real servers.
 */
class DelayTaskHealthTests {

    private static final Duration UNREACHABLE_AFTER = Duration.ofSeconds(10);

    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(200);

    private static final Instant START = Instant.parse("2025-06-01T10:00:00Z");

    private final MovingClock clock = new MovingClock(START);

    private final Probe redis = new Probe();

    private final Probe database = new Probe();

    private final DelayTaskHealth health = new DelayTaskHealth(this.redis, this.database, null, null,
            UNREACHABLE_AFTER, PROBE_TIMEOUT, this.clock);

    @AfterEach
    void stop() {
        this.redis.release.countDown();
        this.database.release.countDown();
        this.health.stop();
    }

    @Test
    void upWhileRedisAndTheDatabaseAnswer() {
        this.health.start();
        HealthReport report = this.health.check();
        assertThat(report.status()).isEqualTo(HealthReport.Status.UP);
        assertThat(report.details()).containsEntry("redis", Map.of("answers", true))
            .containsEntry("database", Map.of("answers", true))
            .containsEntry("listeners", Map.of("enabled", false))
            .containsEntry("dispatch", Map.of("from", "redis"))
            .doesNotContainKey("lastError");
    }

    @Test
    void whileTheDatabaseDispatchesAnOutageOfRedisAloneKeepsTheStatusUpAndOneOfTheDatabaseDoesNot() {
        DelayTaskHealth health = new DelayTaskHealth(this.redis, this.database, null, null, UNREACHABLE_AFTER,
                PROBE_TIMEOUT, this.clock, List::of);
        health.start();
        try {
            this.redis.failure = new RedisConnectionFailureException("Unable to connect to Redis");
            health.check();
            this.clock.advance(UNREACHABLE_AFTER.plusSeconds(1));
            HealthReport report = health.check();
            assertThat(report.status()).isEqualTo(HealthReport.Status.UP);
            assertThat(report.details()).extractingByKey("redis").isEqualTo(Map.of("answers", false, "failingSince",
                    START.toString(), "error",
                    "org.springframework.data.redis.RedisConnectionFailureException: Unable to connect to Redis"));
            this.database.failure = new QueryTimeoutException("no answer");
            health.check();
            this.clock.advance(UNREACHABLE_AFTER.plusSeconds(1));
            assertThat(health.check().status()).isEqualTo(HealthReport.Status.DOWN);
        }
        finally {
            health.stop();
        }
    }

    @Test
    void theDetailsNameTheQueuesClaimedFromTheDatabaseWhileRedisDoesNotAnswerTheirClaims() {
        List<QueueId> fromDatabase = new CopyOnWriteArrayList<>();
        DelayTaskHealth health = new DelayTaskHealth(this.redis, this.database, null, null, UNREACHABLE_AFTER,
                PROBE_TIMEOUT, this.clock, () -> fromDatabase);
        health.start();
        try {
            fromDatabase.addAll(List.of(new QueueId(1, 0), new QueueId(2, 5)));
            assertThat(health.check().details()).containsEntry("dispatch",
                    Map.of("from", "database", "databaseQueues", List.of("1:0", "2:5")));
            fromDatabase.clear();
            assertThat(health.check().details()).containsEntry("dispatch", Map.of("from", "redis"));
        }
        finally {
            health.stop();
        }
    }

    @Test
    void aServerFailingForNoLongerThanUnreachableAfterKeepsTheStatusUpAndShowsWhy() {
        this.health.start();
        this.redis.failure = new RedisConnectionFailureException("Unable to connect to Redis");
        assertThat(this.health.check().status()).isEqualTo(HealthReport.Status.UP);
        this.clock.advance(UNREACHABLE_AFTER);
        HealthReport report = this.health.check();
        assertThat(report.status()).isEqualTo(HealthReport.Status.UP);
        assertThat(report.details()).containsEntry("redis", Map.of("answers", false, "failingSince", START.toString(),
                "error", "org.springframework.data.redis.RedisConnectionFailureException: Unable to connect to Redis"));
        assertThat(report.details()).containsEntry("lastError", Map.of("server", "redis", "at",
                START.plus(UNREACHABLE_AFTER).toString(), "error",
                "org.springframework.data.redis.RedisConnectionFailureException: Unable to connect to Redis"));
    }

    @Test
    void downOnceAServerHasFailedForLongerThanUnreachableAfterAndUpAgainAtTheFirstAnswer() {
        this.health.start();
        this.database.failure = new QueryTimeoutException("timed out");
        this.health.check();
        this.clock.advance(UNREACHABLE_AFTER.plusMillis(1));
        assertThat(this.health.check().status()).isEqualTo(HealthReport.Status.DOWN);
        this.database.failure = null;
        HealthReport report = this.health.check();
        assertThat(report.status()).isEqualTo(HealthReport.Status.UP);
        assertThat(report.details()).containsEntry("database", Map.of("answers", true));
        assertThat(report.details()).as("the last error stays in view after the recovery")
            .extractingByKey("lastError")
            .isEqualTo(Map.of("server", "database", "at", START.plus(UNREACHABLE_AFTER.plusMillis(1)).toString(),
                    "error", "org.springframework.dao.QueryTimeoutException: timed out"));
    }

    @Test
    void aFailureBetweenAnswersStartsTheCountAgain() {
        this.health.start();
        this.redis.failure = new RedisConnectionFailureException("refused");
        this.health.check();
        this.clock.advance(UNREACHABLE_AFTER);
        this.redis.failure = null;
        this.health.check();
        this.redis.failure = new RedisConnectionFailureException("refused");
        this.clock.advance(Duration.ofSeconds(1));
        this.health.check();
        this.clock.advance(UNREACHABLE_AFTER);
        assertThat(this.health.check().status()).isEqualTo(HealthReport.Status.UP);
    }

    @Test
    void aProbeThatHangsHoldsUpNoCheckAndCountsAsFailingFromWhenItWasSent() {
        this.health.start();
        this.redis.hang = true;
        long start = System.nanoTime();
        HealthReport first = this.health.check();
        this.clock.advance(UNREACHABLE_AFTER.plusMillis(1));
        HealthReport second = this.health.check();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(millis).as("two checks while Redis hangs, in ms").isLessThan(2000);
        assertThat(first.status()).isEqualTo(HealthReport.Status.UP);
        assertThat(second.status()).isEqualTo(HealthReport.Status.DOWN);
        assertThat(second.details()).extractingByKey("redis")
            .isEqualTo(Map.of("answers", false, "failingSince", START.toString(), "error", "no answer for 10001 ms"));
        assertThat(this.redis.calls).as("probes sent: the second check waits for the first probe again").hasValue(1);
        this.redis.release.countDown();
        await().atMost(Duration.ofSeconds(5))
            .until(() -> this.health.check().status() == HealthReport.Status.UP);
    }

    @Test
    void outOfServiceBeforeStartAndAfterStopWithoutProbing() {
        assertThat(this.health.check().status()).isEqualTo(HealthReport.Status.OUT_OF_SERVICE);
        this.health.start();
        this.health.stop();
        assertThat(this.health.check().status()).isEqualTo(HealthReport.Status.OUT_OF_SERVICE);
        assertThat(this.redis.calls).hasValue(0);
        assertThat(this.database.calls).hasValue(0);
    }

    @Test
    void aNegativeUnreachableAfterIsRefusedNamingTheProperty() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new DelayTaskHealth(this.redis, this.database, null, null, Duration.ofSeconds(-1),
                    PROBE_TIMEOUT, this.clock))
            .withMessage("delay-task.health.unreachable-after must not be negative");
    }

    /** A probe that answers, fails or hangs until released, as the test says. */
    static class Probe implements Callable<String> {

        final AtomicInteger calls = new AtomicInteger();

        final CountDownLatch release = new CountDownLatch(1);

        volatile RuntimeException failure;

        volatile boolean hang;

        @Override
        public String call() throws InterruptedException {
            this.calls.incrementAndGet();
            if (this.hang) {
                this.release.await();
            }
            RuntimeException failure = this.failure;
            if (failure != null) {
                throw failure;
            }
            return "PONG";
        }

    }


}
