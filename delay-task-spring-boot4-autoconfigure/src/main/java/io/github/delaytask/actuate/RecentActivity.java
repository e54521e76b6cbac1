package io.github.delaytask.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskEvents;

/**
 * What this instance did over the last ten minutes, in intervals of ten seconds: runs recorded by outcome and how
 * late handlers started, for the {@code delaytasks} endpoint and the dashboard's chart. Public for wiring.
 * <p>
 * It keeps a fixed ring of intervals, so its memory does not grow; each event costs a short lock. Only tasks run by
 * listeners have a lateness, and only those with an execute time (a task added to be due at once has none).
 */
public class RecentActivity implements TaskEvents {

    /** Length of one interval. */
    static final Duration INTERVAL = Duration.ofSeconds(10);

    /** How many intervals are kept: ten minutes. */
    static final int INTERVALS = 60;

    private static final long INTERVAL_MILLIS = INTERVAL.toMillis();

    private final Clock clock;

    private final Counts[] ring = new Counts[INTERVALS];

    /**
     * @param clock the clock lateness is measured by, that of delays
     */
    public RecentActivity(Clock clock) {
        this.clock = clock;
        for (int i = 0; i < INTERVALS; i++) {
            this.ring[i] = new Counts();
        }
    }

    @Override
    public void completed(QueueId queue, Outcome outcome, int count) {
        long now = this.clock.millis();
        synchronized (this.ring) {
            Counts counts = current(now);
            if (counts != null) {
                counts.completed(outcome, count);
            }
        }
    }

    @Override
    public void handlerStarting(QueueId queue, long executeTime) {
        if (executeTime <= 0) {
            return;
        }
        long now = this.clock.millis();
        // a start a little before the execute time (clocks differ by a few ms) counts as on time
        long lateness = Math.max(0, now - executeTime);
        synchronized (this.ring) {
            Counts counts = current(now);
            if (counts != null) {
                counts.started(lateness);
            }
        }
    }

    /** The intervals of the last ten minutes, oldest first, the current one (still filling) last. */
    public Activity snapshot() {
        long last = Math.floorDiv(this.clock.millis(), INTERVAL_MILLIS);
        List<Interval> intervals = new ArrayList<>(INTERVALS);
        synchronized (this.ring) {
            for (long index = last - INTERVALS + 1; index <= last; index++) {
                Counts counts = this.ring[slot(index)];
                intervals.add((counts.index == index) ? counts.toInterval()
                        : new Interval(Instant.ofEpochMilli(index * INTERVAL_MILLIS), 0, 0, 0, 0, 0, 0));
            }
        }
        return new Activity(INTERVAL, intervals);
    }

    /** The counts of the interval holding {@code now}, or null if the clock went back past a newer interval. */
    private Counts current(long now) {
        long index = Math.floorDiv(now, INTERVAL_MILLIS);
        Counts counts = this.ring[slot(index)];
        if (counts.index > index) {
            return null;
        }
        if (counts.index < index) {
            counts.reset(index);
        }
        return counts;
    }

    private static int slot(long index) {
        return (int) Math.floorMod(index, INTERVALS);
    }

    /**
     * What this instance did recently.
     * @param interval the length of each interval
     * @param intervals the last ten minutes, oldest first; the last one is still filling
     */
    public record Activity(Duration interval, List<Interval> intervals) {
    }

    /**
     * What this instance did in one interval.
     * @param start when the interval began
     * @param executed runs recorded executed
     * @param retried runs recorded failed, with an attempt left
     * @param dead runs recorded failed on their last attempt
     * @param starts handler starts of tasks that had an execute time
     * @param averageLatenessMillis how late those starts were on average, in milliseconds
     * @param maxLatenessMillis how late the latest of them was, in milliseconds
     */
    public record Interval(Instant start, long executed, long retried, long dead, long starts,
            long averageLatenessMillis, long maxLatenessMillis) {
    }

    /** The counts of one slot of the ring, for the interval of the given index. */
    private static final class Counts {

        private long index = Long.MIN_VALUE;

        private long executed;

        private long retried;

        private long dead;

        private long starts;

        private long latenessSum;

        private long latenessMax;

        void reset(long index) {
            this.index = index;
            this.executed = 0;
            this.retried = 0;
            this.dead = 0;
            this.starts = 0;
            this.latenessSum = 0;
            this.latenessMax = 0;
        }

        void completed(Outcome outcome, int count) {
            switch (outcome) {
                case EXECUTED -> this.executed += count;
                case RETRIED -> this.retried += count;
                case DEAD -> this.dead += count;
            }
        }

        void started(long lateness) {
            this.starts++;
            this.latenessSum += lateness;
            this.latenessMax = Math.max(this.latenessMax, lateness);
        }

        Interval toInterval() {
            return new Interval(Instant.ofEpochMilli(this.index * INTERVAL_MILLIS), this.executed, this.retried,
                    this.dead, this.starts, (this.starts > 0) ? this.latenessSum / this.starts : 0, this.latenessMax);
        }

    }

}
