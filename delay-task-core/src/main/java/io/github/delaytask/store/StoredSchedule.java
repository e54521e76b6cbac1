package io.github.delaytask.store;

import io.github.delaytask.TaskSchedule;
import org.jspecify.annotations.Nullable;

/**
 * A row of {@code taskinfo_schedule}. Public for wiring.
 * @param schedule what it runs, and when
 * @param state whether it adds tasks
 * @param declaration the digest of the {@link TaskSchedule} bean's declaration last applied to it, or null for a
 * schedule saved at run time
 * @param nextTime the first of its times whose task is not stored yet, epoch milliseconds
 * @param version the row's version, which every change checks and moves on
 */
public record StoredSchedule(TaskSchedule schedule, State state, @Nullable String declaration, long nextTime,
        int version) {

    public String name() {
        return this.schedule.getName();
    }

    public StoredSchedule withNextTime(long nextTime) {
        return new StoredSchedule(this.schedule, this.state, this.declaration, nextTime, this.version);
    }

    public StoredSchedule withState(State state) {
        return new StoredSchedule(this.schedule, state, this.declaration, this.nextTime, this.version);
    }

    /** Whether a schedule adds tasks; stored as its ordinal in the column {@code paused}. */
    public enum State {

        /** It adds tasks. */
        ACTIVE,

        /** Paused by a call, until resumed by one. */
        PAUSED,

        /** Declared in code, then paused by an instance that started without the declaration, until declared again. */
        UNDECLARED

    }

}
