package io.github.delaytask.core;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.util.List;

import io.github.delaytask.DelayTask;
import io.github.delaytask.TaskSchedule;

import org.springframework.scheduling.support.CronExpression;

/**
 * The times of a schedule, in epoch milliseconds: a cron expression's, read in its time zone, or those of an interval,
 * kept to the rhythm of the schedule's stored next time (its anchor), however late they are looked at.
 */
final class ScheduleTimes {

    /** A time after every time a task may have: the schedule has no more times. */
    static final long NEVER = DelayTask.MAX_EXECUTE_TIME + 1;

    private final TaskSchedule schedule;

    private final CronExpression cron;

    private final long anchor;

    /**
     * @param anchor a time of the schedule, for an interval's rhythm; unused for a cron expression
     */
    ScheduleTimes(TaskSchedule schedule, long anchor) {
        this.schedule = schedule;
        this.cron = (schedule.getCron() != null) ? CronExpression.parse(schedule.getCron()) : null;
        this.anchor = anchor;
    }

    /** The times of a schedule first stored at {@code now}: a cron expression's from then, an interval's after one. */
    static ScheduleTimes startingAt(TaskSchedule schedule, long now) {
        Duration interval = schedule.getInterval();
        return new ScheduleTimes(schedule, (interval != null) ? now + interval.toMillis() : now);
    }

    /** The first time strictly after the given one, or {@link #NEVER}. */
    long after(long time) {
        if (time >= NEVER - 1) {
            return NEVER;
        }
        if (this.cron == null) {
            long interval = this.schedule.getInterval().toMillis();
            long next = this.anchor + (Math.floorDiv(time - this.anchor, interval) + 1) * interval;
            return (next < NEVER) ? next : NEVER;
        }
        long millis = cronAfter(time);
        return (millis < NEVER) ? millis : NEVER;
    }

    /**
     * A cron expression's next time, read on the wall clock of its zone: a wall-clock time comes once, so a daily
     * job neither runs twice in the night the clocks go back (it runs at the first coming of its time) nor skips the
     * night they go forward (a time the clocks skip runs at the moment they skip to). Spring's own reading of a
     * zoned time does both, as does {@code @Scheduled}. A schedule first looked at within the repeated hour (saved
     * or resumed then) runs a time of that hour at its second coming, as its first passed before it was looked at.
     */
    private long cronAfter(long time) {
        ZoneId zone = this.schedule.getZone();
        ZoneRules rules = zone.getRules();
        LocalDateTime local = LocalDateTime.ofInstant(Instant.ofEpochMilli(time), zone);
        // a few steps at most: only a look from within a repeated hour can meet a time already passed
        for (int i = 0; i < 8; i++) {
            LocalDateTime next = this.cron.next(local);
            if (next == null) {
                return NEVER;
            }
            List<ZoneOffset> offsets = rules.getValidOffsets(next);
            long first = offsets.isEmpty() ? rules.getTransition(next).getInstant().toEpochMilli()
                    : next.toInstant(offsets.get(0)).toEpochMilli();
            if (first > time) {
                return first;
            }
            if (offsets.size() > 1 && next.toInstant(offsets.get(1)).toEpochMilli() > time) {
                // looked at from within the repeated hour, after the first coming of this time
                return next.toInstant(offsets.get(1)).toEpochMilli();
            }
            local = next;
        }
        return NEVER;
    }

}
