package io.github.delaytask.core;

import java.util.ArrayList;
import java.util.List;

import io.github.delaytask.TaskSchedule;
import io.github.delaytask.store.StoredSchedule;

/**
 * What one look at a due schedule stores: the tasks of its times up to a horizon ahead, those it missed as its
 * catch-up policy says, and the time it goes on from.
 * @param times the times whose tasks to store, each a task's execute time and the time its business key names
 * @param nextTime the first time whose task is not stored, the schedule's next time from then on
 * @param missed how many times it missed; more than {@link #MAX_CATCH_UP} when there were more, which are not counted
 * @param stored how many of the missed times have a task
 */
record ScheduleRound(List<Long> times, long nextTime, long missed, int stored) {

    /** The most tasks of missed times stored at one look: a schedule down for long stores no flood. */
    static final int MAX_CATCH_UP = 1000;

    /** The most tasks of times still to come stored at one look. */
    static final int MAX_AHEAD = 1000;

    /**
     * @param now the current time, epoch milliseconds
     * @param horizon how far ahead of now the tasks of its times are stored, in milliseconds
     * @param tolerance how late a time may be looked at and still count as on time, in milliseconds: a time older
     * than that was missed
     */
    static ScheduleRound of(StoredSchedule row, long now, long horizon, long tolerance) {
        ScheduleTimes schedule = new ScheduleTimes(row.schedule(), row.nextTime());
        long cutoff = now - tolerance;
        List<Long> missed = new ArrayList<>();
        long missedCount = 0;
        long time = row.nextTime();
        while (time < cutoff) {
            if (missed.size() == MAX_CATCH_UP) {
                // far too many to list: go on from the first time on time
                time = schedule.after(cutoff - 1);
                missedCount = MAX_CATCH_UP + 1;
                break;
            }
            missed.add(time);
            missedCount++;
            time = schedule.after(time);
        }
        List<Long> times = new ArrayList<>();
        TaskSchedule.CatchUp catchUp = row.schedule().getCatchUp();
        if (catchUp == TaskSchedule.CatchUp.ONCE && !missed.isEmpty()) {
            times.add(missed.get(0));
        }
        else if (catchUp == TaskSchedule.CatchUp.EACH) {
            times.addAll(missed);
        }
        int stored = times.size();
        long until = now + horizon;
        int ahead = 0;
        while (time <= until && time < ScheduleTimes.NEVER && ahead < MAX_AHEAD) {
            times.add(time);
            ahead++;
            time = schedule.after(time);
        }
        return new ScheduleRound(List.copyOf(times), time, missedCount, stored);
    }

    /**
     * The times of a stored schedule whose tasks are stored and not due yet: after now and before its next time, at
     * most {@link #MAX_AHEAD}.
     */
    static List<Long> pending(StoredSchedule row, long now) {
        ScheduleTimes schedule = new ScheduleTimes(row.schedule(), row.nextTime());
        List<Long> times = new ArrayList<>();
        for (long time = schedule.after(now); time < row.nextTime() && times.size() < MAX_AHEAD;
                time = schedule.after(time)) {
            times.add(time);
        }
        return times;
    }

}
