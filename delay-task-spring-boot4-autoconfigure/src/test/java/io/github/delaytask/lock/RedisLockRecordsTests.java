package io.github.delaytask.lock;

import java.time.Duration;
import java.time.Instant;

import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Run records in an embedded Redis.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisLockRecordsTests {

    private static final Instant START = Instant.parse("2025-01-01T08:00:00Z");

    private TestBackend backend;

    private LettuceConnectionFactory connectionFactory;

    private StringRedisTemplate redis;

    private RedisKeys keys;

    private RedisLockRecords records;

    @BeforeAll
    void startRedis() {
        this.backend = TestBackend.embedded();
        this.connectionFactory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(this.backend.redisHost(), this.backend.redisPort()));
        this.connectionFactory.afterPropertiesSet();
        this.redis = new StringRedisTemplate(this.connectionFactory);
        this.keys = new RedisKeys(this.backend.keyPrefix());
        this.records = new RedisLockRecords(this.redis, this.keys);
    }

    @AfterAll
    void stopRedis() {
        this.connectionFactory.destroy();
        this.backend.close();
    }

    @Test
    void runIsReadBackAsRecordedWhileRunningAndOnceFinished() {
        LastRun started = LastRun.started("run-1", "web-1", 4242, START);
        this.records.runStarted("report", started);
        assertThat(this.records.lastRun("report")).contains(started);
        LastRun finished = started.finished(START.plusMillis(1500), new IllegalStateException("boom"));
        this.records.runFinished("report", finished);
        assertThat(this.records.lastRun("report")).contains(finished);
        assertThat(finished.duration()).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void newRunLeavesNothingOfThePreviousOne() {
        LastRun first = LastRun.started("run-1", "web-1", 1, START);
        this.records.runStarted("nightly", first);
        this.records.runFinished("nightly", first.finished(START.plusSeconds(1), new IllegalStateException("x")));
        LastRun second = LastRun.started("run-2", "web-2", 2, START.plusSeconds(60));
        this.records.runStarted("nightly", second);
        assertThat(this.records.lastRun("nightly")).contains(second);
    }

    @Test
    void endOfARunThatOutlivedItsLockDoesNotOverwriteTheRunThatFollowed() {
        LastRun slow = LastRun.started("run-1", "web-1", 1, START);
        this.records.runStarted("cleanup", slow);
        LastRun next = LastRun.started("run-2", "web-2", 2, START.plusSeconds(600));
        this.records.runStarted("cleanup", next);
        this.records.runFinished("cleanup", slow.finished(START.plusSeconds(700), null));
        assertThat(this.records.lastRun("cleanup")).contains(next);
    }

    @Test
    void lastRunOfALockNeverRunIsEmpty() {
        assertThat(this.records.lastRun("never")).isEmpty();
    }

    @Test
    void lockRemainingIsTheTimeToLiveOfAHeldLockAndEmptyForAFreeOne() {
        assertThat(this.records.lockRemaining("held")).isEmpty();
        this.redis.opsForValue().set(this.keys.lock("held"), "token", Duration.ofSeconds(30));
        assertThat(this.records.lockRemaining("held")).hasValueSatisfying(
                (remaining) -> assertThat(remaining).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(30)));
    }

}
