package io.github.delaytask.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import io.github.delaytask.actuate.RecentActivity.Activity;
import io.github.delaytask.actuate.RecentActivity.Interval;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskEvents.Outcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RecentActivity}, on a clock the test moves.
 */
class RecentActivityTests {

    private static final QueueId QUEUE = new QueueId(1, 0);

    /** On an interval's boundary, so that the steps below land in known intervals. */
    private static final Instant START = Instant.parse("2026-12-03T10:00:00Z");

    private final MovableClock clock = new MovableClock(START);

    private final RecentActivity activity = new RecentActivity(this.clock);

    @Test
    void coversTheLastTenMinutesInIntervalsOfTenSecondsOldestFirstEvenWhenNothingRan() {
        Activity snapshot = this.activity.snapshot();
        assertThat(snapshot.interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(snapshot.intervals()).hasSize(60);
        assertThat(snapshot.intervals().get(59).start()).isEqualTo(START);
        assertThat(snapshot.intervals().get(0).start()).isEqualTo(START.minus(Duration.ofSeconds(590)));
        assertThat(snapshot.intervals()).allSatisfy((interval) -> assertThat(interval.executed() + interval.retried()
                + interval.dead() + interval.starts()).isZero());
    }

    @Test
    void countsRunsByOutcomeInTheIntervalTheyWereRecordedIn() {
        this.activity.completed(QUEUE, Outcome.EXECUTED, 5);
        this.activity.completed(QUEUE, Outcome.RETRIED, 2);
        this.clock.advance(Duration.ofSeconds(10));
        this.activity.completed(QUEUE, Outcome.EXECUTED, 1);
        this.activity.completed(new QueueId(2, 3), Outcome.DEAD, 1);
        List<Interval> intervals = this.activity.snapshot().intervals();
        assertThat(intervals.get(58)).extracting(Interval::executed, Interval::retried, Interval::dead)
            .containsExactly(5L, 2L, 0L);
        assertThat(intervals.get(59)).extracting(Interval::start, Interval::executed, Interval::dead)
            .containsExactly(START.plusSeconds(10), 1L, 1L);
    }

    @Test
    void recordsTheAverageAndLargestLatenessOfStartsThatHadAnExecuteTime() {
        long now = START.toEpochMilli();
        this.activity.handlerStarting(QUEUE, now - 100);
        this.activity.handlerStarting(QUEUE, now - 300);
        // a few ms early counts as on time; a task due at once has no execute time and no lateness
        this.activity.handlerStarting(QUEUE, now + 5);
        this.activity.handlerStarting(QUEUE, 0);
        Interval interval = this.activity.snapshot().intervals().get(59);
        assertThat(interval.starts()).isEqualTo(3);
        assertThat(interval.averageLatenessMillis()).isEqualTo(133);
        assertThat(interval.maxLatenessMillis()).isEqualTo(300);
    }

    @Test
    void forgetsIntervalsOlderThanTenMinutesAndReusesTheirSlots() {
        this.activity.completed(QUEUE, Outcome.EXECUTED, 7);
        this.clock.advance(Duration.ofMinutes(10));
        assertThat(this.activity.snapshot().intervals()).extracting(Interval::executed).containsOnly(0L);
        // the same slot of the ring, ten minutes later
        this.activity.completed(QUEUE, Outcome.EXECUTED, 1);
        List<Interval> intervals = this.activity.snapshot().intervals();
        assertThat(intervals.get(59)).extracting(Interval::start, Interval::executed)
            .containsExactly(START.plus(Duration.ofMinutes(10)), 1L);
        assertThat(intervals).extracting(Interval::executed).containsOnly(0L, 1L);
    }

    @Test
    void anEventAfterTheClockWentBackPastANewerIntervalIsDroppedRatherThanMixedIntoIt() {
        this.clock.advance(Duration.ofMinutes(10));
        this.activity.completed(QUEUE, Outcome.EXECUTED, 1);
        this.clock.advance(Duration.ofMinutes(-10));
        this.activity.completed(QUEUE, Outcome.EXECUTED, 4);
        this.clock.advance(Duration.ofMinutes(10));
        assertThat(this.activity.snapshot().intervals().get(59).executed()).isEqualTo(1);
    }

    static final class MovableClock extends Clock {

        private Instant now;

        MovableClock(Instant start) {
            this.now = start;
        }

        void advance(Duration duration) {
            this.now = this.now.plus(duration);
        }

        @Override
        public Instant instant() {
            return this.now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }

    }

}
