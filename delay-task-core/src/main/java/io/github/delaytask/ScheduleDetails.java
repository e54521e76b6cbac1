package io.github.delaytask;

import java.time.Instant;

/**
 * A stored recurring schedule, as {@link DelayTaskService#findSchedules()} reads it.
 * @param schedule what it runs, and when
 * @param paused whether it adds no task until resumed; a schedule declared in code is paused too when an instance
 * starts without its declaration (the log says so)
 * @param nextTime the first of its times whose task is not stored yet: the tasks of its earlier times are stored
 * as ordinary tasks, found by {@link TaskSchedule#bizKeyOf}
 * @param declaredInCode whether a {@link TaskSchedule} bean declared it, rather than a call at run time
 */
public record ScheduleDetails(TaskSchedule schedule, boolean paused, Instant nextTime, boolean declaredInCode) {

}
