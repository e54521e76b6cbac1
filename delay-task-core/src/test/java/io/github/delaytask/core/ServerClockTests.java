package io.github.delaytask.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clock of due times, over a local clock the test moves and a Redis whose answers take the time the test says.
 */
class ServerClockTests {

    private final MovingClock local = new MovingClock(1_000_000);

    /** Each call to TIME: how long its round trip takes, and where in it Redis reads its clock. */
    private final Deque<long[]> calls = new ArrayDeque<>();

    /** How far Redis's clock is ahead of the local one. */
    private long redisAhead;

    /** The monotonic clock, in ns: it moves with the local clock, but no step of the local clock moves it. */
    private long nanos = 77_000_000_000L;

    private final ServerClock clock = new ServerClock(this::time, "the Redis server", this.local, () -> this.nanos,
            Duration.ofSeconds(30));

    private long time() {
        long[] call = this.calls.removeFirst();
        elapse(call[1]);
        long server = this.local.millis + this.redisAhead;
        elapse(call[0] - call[1]);
        return server;
    }

    private void elapse(long millis) {
        this.local.millis += millis;
        this.nanos += millis * 1_000_000;
    }

    @Test
    void aClockAnHourBehindRedisReadsRedisTimeNeverAheadOfIt() {
        this.redisAhead = 3_600_000;
        this.calls.add(new long[] { 2, 1 });
        this.clock.sample();
        long redisNow = this.local.millis + this.redisAhead;
        assertThat(this.clock.millis()).isBetween(redisNow - 3, redisNow);
    }

    @Test
    void whereverRedisReadsItsClockInTheRoundTripThisClockIsNotAheadOfIt() {
        this.redisAhead = -250;
        for (long readAt = 0; readAt <= 4; readAt++) {
            this.calls.add(new long[] { 4, readAt });
            this.clock.sample();
            assertThat(this.clock.millis()).isLessThanOrEqualTo(this.local.millis + this.redisAhead);
        }
    }

    @Test
    void aSlowRoundTripIsMeasuredAgainAndTheQuickestCounts() {
        this.redisAhead = 500;
        // a round trip of 400 ms with Redis reading at its start would put this clock 400 ms behind
        this.calls.add(new long[] { 400, 0 });
        this.calls.add(new long[] { 1, 0 });
        this.clock.sample();
        assertThat(this.calls).isEmpty();
        long redisNow = this.local.millis + this.redisAhead;
        assertThat(this.clock.millis()).isBetween(redisNow - 2, redisNow);
    }

    @Test
    void betweenReadingsThisClockRunsWithTime() {
        this.redisAhead = 40;
        this.calls.add(new long[] { 2, 1 });
        this.clock.sample();
        elapse(12_345);
        long redisNow = this.local.millis + this.redisAhead;
        assertThat(this.clock.millis()).isBetween(redisNow - 3, redisNow);
    }

    @Test
    void aStepOfTheLocalClockAfterAReadingMovesThisClockNot() {
        this.redisAhead = 0;
        this.calls.add(new long[] { 2, 1 });
        this.clock.sample();
        long redisAtReading = this.local.millis + this.redisAhead;
        // NTP steps this host's clock an hour back, then a second passes
        this.local.millis -= 3_600_000;
        elapse(1000);
        assertThat(this.clock.millis()).isBetween(redisAtReading + 1000 - 3, redisAtReading + 1000);
    }

    @Test
    void clocksThatPartSinceTheReadingAskForAReadingAtOnceAndThoseThatKeepTogetherDoNot() {
        this.calls.add(new long[] { 2, 1 });
        this.clock.sample();
        elapse(25_000);
        this.clock.millis();
        assertThat(this.clock.readingAsked()).as("after 25 s on both clocks").isFalse();
        // the host slept a minute: its clock moved on, the monotonic one stood still
        this.local.millis += 60_000;
        this.clock.millis();
        assertThat(this.clock.readingAsked()).isTrue();
    }

    @Test
    void aReadingThatFailsAfterAGoodButSlowOneKeepsTheSlowOne() {
        this.redisAhead = 700;
        this.calls.add(new long[] { 40, 20 });
        this.clock.sample();
        long redisNow = this.local.millis + this.redisAhead;
        assertThat(this.clock.millis()).isBetween(redisNow - 42, redisNow);
    }

    @Test
    void untilRedisAnswersTheLocalClockApplies() {
        assertThat(this.clock.millis()).isEqualTo(this.local.millis);
    }

    private static final class MovingClock extends Clock {

        long millis;

        MovingClock(long millis) {
            this.millis = millis;
        }

        @Override
        public long millis() {
            return this.millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(this.millis);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

    }

}
