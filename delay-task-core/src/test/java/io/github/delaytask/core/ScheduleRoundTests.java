package io.github.delaytask.core;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

import io.github.delaytask.TaskSchedule;
import io.github.delaytask.TaskSchedule.CatchUp;
import io.github.delaytask.store.StoredSchedule;
import io.github.delaytask.store.StoredSchedule.State;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.support.CronExpression;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The times a look at a schedule stores: an interval's rhythm, a cron expression's across changes of daylight saving
 * time, and each catch-up policy after missed times.
 */
class ScheduleRoundTests {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static final long SECOND = 1000;

    private static final long MINUTE = 60 * SECOND;

    private static final long NOW = Instant.parse("2026-12-07T10:00:00Z").toEpochMilli();

    @Test
    void anIntervalKeepsTheRhythmOfItsAnchorHoweverLateItIsLookedAt() {
        ScheduleTimes times = new ScheduleTimes(TaskSchedule.every("tick", Duration.ofMinutes(1)).build(),
                NOW + 17 * SECOND);
        assertThat(times.after(NOW)).isEqualTo(NOW + 17 * SECOND);
        assertThat(times.after(NOW + 17 * SECOND)).isEqualTo(NOW + 77 * SECOND);
        assertThat(times.after(NOW + 10 * MINUTE + 5 * SECOND)).isEqualTo(NOW + 10 * MINUTE + 17 * SECOND);
        assertThat(times.after(NOW - 10 * MINUTE)).isEqualTo(NOW - 9 * MINUTE - 43 * SECOND);
    }

    @Test
    void aNewIntervalScheduleFirstRunsOneIntervalAfterItIsStored() {
        TaskSchedule schedule = TaskSchedule.every("tick", Duration.ofMinutes(5)).build();
        assertThat(ScheduleTimes.startingAt(schedule, NOW).after(NOW)).isEqualTo(NOW + 5 * MINUTE);
    }

    @Test
    void aDailyCronTimeThatTheClocksSkipRunsThatDayAtTheMomentTheySkipTo() {
        // 2026-03-29: Berlin's clocks go from 02:00 to 03:00, so 02:30 does not exist that day
        TaskSchedule schedule = TaskSchedule.cron("nightly", "0 30 2 * * *", BERLIN).build();
        List<ZonedDateTime> times = times(schedule, ZonedDateTime.of(2026, 3, 27, 12, 0, 0, 0, BERLIN), 4);
        assertThat(times).extracting(ZonedDateTime::toLocalDate)
            .extracting(Object::toString)
            .containsExactly("2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31");
        assertThat(times.get(0).toLocalTime()).hasToString("02:30");
        assertThat(times.get(1).toLocalTime()).hasToString("03:00");
        assertThat(times.get(2).toLocalTime()).hasToString("02:30");
        assertThat(times.get(2).getOffset()).isNotEqualTo(times.get(0).getOffset());
    }

    @Test
    void aDailyCronTimeThatTheClocksRepeatRunsOnceThatDayAtItsFirstComing() {
        // 2026-10-25: Berlin's clocks go back from 03:00 to 02:00, so 02:30 comes twice that night
        TaskSchedule schedule = TaskSchedule.cron("nightly", "0 30 2 * * *", BERLIN).build();
        List<ZonedDateTime> times = times(schedule, ZonedDateTime.of(2026, 10, 23, 12, 0, 0, 0, BERLIN), 4);
        assertThat(times).extracting(ZonedDateTime::toLocalDate)
            .extracting(Object::toString)
            .containsExactly("2026-10-24", "2026-10-25", "2026-10-26", "2026-10-27");
        assertThat(times).extracting(ZonedDateTime::toLocalTime).extracting(Object::toString).containsOnly("02:30");
        // the first coming, in summer time; the day after it has 25 hours, as the wall clock says 24
        assertThat(times.get(1).getOffset()).hasToString("+02:00");
        assertThat(Duration.between(times.get(1), times.get(2))).isEqualTo(Duration.ofHours(25));
    }

    @Test
    void springsOwnReadingOfAZonedTimeSkipsTheNightTheClocksGoForwardAndRunsTwiceTheNightTheyGoBack() {
        // what @Scheduled does, and this reading does not
        CronExpression cron = CronExpression.parse("0 30 2 * * *");
        ZonedDateTime spring = cron.next(ZonedDateTime.of(2026, 3, 28, 12, 0, 0, 0, BERLIN));
        assertThat(spring.toLocalDate()).hasToString("2026-03-30");
        ZonedDateTime first = cron.next(ZonedDateTime.of(2026, 10, 24, 12, 0, 0, 0, BERLIN));
        ZonedDateTime second = cron.next(first);
        assertThat(first.toLocalDate()).isEqualTo(second.toLocalDate());
        assertThat(Duration.between(first, second)).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void aNightlyScheduleOfATimeTheClocksSkipStoresItsTaskAtTheMomentTheySkipToWhenLookedAtThatNight() {
        TaskSchedule schedule = TaskSchedule.cron("nightly", "0 30 2 * * *", BERLIN).build();
        long justBefore = ZonedDateTime.of(2026, 3, 29, 1, 59, 50, 0, BERLIN).toInstant().toEpochMilli();
        long next = new ScheduleTimes(schedule, 0).after(justBefore - 1);
        ScheduleRound round = ScheduleRound.of(new StoredSchedule(schedule, State.ACTIVE, null, next, 1), justBefore,
                20 * SECOND, 20 * SECOND);
        // 03:00 summer time, ten seconds after 01:59:50 winter time
        assertThat(round.times()).containsExactly(justBefore + 10 * SECOND);
        assertThat(Instant.ofEpochMilli(round.nextTime()).atZone(BERLIN))
            .hasToString("2026-03-30T02:30+02:00[Europe/Berlin]");
    }

    @Test
    void anHourlyCronScheduleRunsEachWallClockHourOnceAcrossBothChanges() {
        TaskSchedule schedule = TaskSchedule.cron("hourly", "0 0 * * * *", BERLIN).build();
        // 02:00 does not exist in the night the clocks go forward: that hour's run is at 03:00, which follows 01:00
        List<ZonedDateTime> spring = times(schedule, ZonedDateTime.of(2026, 3, 29, 0, 30, 0, 0, BERLIN), 3);
        assertThat(spring).extracting((time) -> time.toInstant().toString())
            .containsExactly("2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z");
        // 02:00 comes twice in the night the clocks go back: once here (a schedule by interval runs every hour)
        List<ZonedDateTime> autumn = times(schedule, ZonedDateTime.of(2026, 10, 25, 1, 30, 0, 0, BERLIN), 3);
        assertThat(autumn).extracting((time) -> time.toInstant().toString())
            .containsExactly("2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z", "2026-10-25T03:00:00Z");
    }

    @Test
    void aScheduleLookedAtOnTimeStoresItsTimesUpToTheHorizonAndGoesOnFromTheNext() {
        StoredSchedule row = row(CatchUp.ONCE, NOW + 5 * SECOND, 10 * SECOND);
        ScheduleRound round = ScheduleRound.of(row, NOW, 20 * SECOND, 20 * SECOND);
        assertThat(round.times()).containsExactly(NOW + 5 * SECOND, NOW + 15 * SECOND);
        assertThat(round.nextTime()).isEqualTo(NOW + 25 * SECOND);
        assertThat(round.missed()).isZero();
    }

    @Test
    void aTimeLateByNoMoreThanTheToleranceIsStoredAsItIsNotAsMissed() {
        StoredSchedule row = row(CatchUp.SKIP, NOW - 20 * SECOND, MINUTE);
        ScheduleRound round = ScheduleRound.of(row, NOW, 20 * SECOND, 20 * SECOND);
        assertThat(round.times()).containsExactly(NOW - 20 * SECOND);
        assertThat(round.missed()).isZero();
    }

    @Test
    void aTimeLateByAMillisecondMoreThanTheToleranceWasMissed() {
        StoredSchedule row = row(CatchUp.SKIP, NOW - 20 * SECOND - 1, MINUTE);
        ScheduleRound round = ScheduleRound.of(row, NOW, 20 * SECOND, 20 * SECOND);
        assertThat(round.times()).isEmpty();
        assertThat(round.missed()).isOne();
        assertThat(round.nextTime()).isEqualTo(NOW + 40 * SECOND - 1);
    }

    @Test
    void missedTimesCaughtUpOnceStoreOneTaskNamedForTheFirst() {
        StoredSchedule row = row(CatchUp.ONCE, NOW - 5 * MINUTE, MINUTE);
        ScheduleRound round = ScheduleRound.of(row, NOW, 20 * SECOND, 20 * SECOND);
        assertThat(round.times()).containsExactly(NOW - 5 * MINUTE, NOW);
        assertThat(round.missed()).isEqualTo(5);
        assertThat(round.stored()).isEqualTo(1);
        assertThat(round.nextTime()).isEqualTo(NOW + MINUTE);
    }

    @Test
    void missedTimesCaughtUpEachStoreATaskForEvery() {
        StoredSchedule row = row(CatchUp.EACH, NOW - 5 * MINUTE, MINUTE);
        ScheduleRound round = ScheduleRound.of(row, NOW, 20 * SECOND, 20 * SECOND);
        assertThat(round.times()).containsExactly(NOW - 5 * MINUTE, NOW - 4 * MINUTE, NOW - 3 * MINUTE,
                NOW - 2 * MINUTE, NOW - MINUTE, NOW);
        assertThat(round.stored()).isEqualTo(5);
    }

    @Test
    void missedTimesSkippedStoreNoneOfThem() {
        StoredSchedule row = row(CatchUp.SKIP, NOW - 5 * MINUTE, MINUTE);
        ScheduleRound round = ScheduleRound.of(row, NOW, 20 * SECOND, 20 * SECOND);
        assertThat(round.times()).containsExactly(NOW);
        assertThat(round.missed()).isEqualTo(5);
        assertThat(round.stored()).isZero();
        assertThat(round.nextTime()).isEqualTo(NOW + MINUTE);
    }

    @Test
    void aScheduleDownForAYearStoresAtMostAThousandMissedTimesAndGoesOnFromNow() {
        StoredSchedule row = row(CatchUp.EACH, NOW - 365L * 24 * 60 * MINUTE, MINUTE);
        ScheduleRound round = ScheduleRound.of(row, NOW, 20 * SECOND, 20 * SECOND);
        assertThat(round.stored()).isEqualTo(ScheduleRound.MAX_CATCH_UP);
        assertThat(round.missed()).isEqualTo(ScheduleRound.MAX_CATCH_UP + 1);
        assertThat(round.times()).last().isEqualTo(NOW);
        assertThat(round.nextTime()).isEqualTo(NOW + MINUTE);
    }

    @Test
    void thePendingTimesAreThoseStoredAfterNowAndBeforeTheNextTime() {
        StoredSchedule row = row(CatchUp.ONCE, NOW + 25 * SECOND, 10 * SECOND);
        assertThat(ScheduleRound.pending(row, NOW)).containsExactly(NOW + 5 * SECOND, NOW + 15 * SECOND);
    }

    @Test
    void aLookFromWithinTheRepeatedHourFindsTheSecondComingOfATimeNotTheFirstThatPassed() {
        TaskSchedule schedule = TaskSchedule.cron("quarter", "0 45 2 * * *", BERLIN).build();
        // 02:30 CET, the second coming of 02:30, after the first coming of 02:45 (CEST) passed
        long time = Instant.parse("2026-10-25T01:30:00Z").toEpochMilli();
        assertThat(Instant.ofEpochMilli(new ScheduleTimes(schedule, 0).after(time)))
            .isEqualTo(Instant.parse("2026-10-25T01:45:00Z"));
    }

    private static StoredSchedule row(CatchUp catchUp, long nextTime, long intervalMillis) {
        TaskSchedule schedule = TaskSchedule.every("tick", Duration.ofMillis(intervalMillis)).catchUp(catchUp).build();
        return new StoredSchedule(schedule, State.ACTIVE, null, nextTime, 1);
    }

    private static List<ZonedDateTime> times(TaskSchedule schedule, ZonedDateTime from, int count) {
        ScheduleTimes times = new ScheduleTimes(schedule, 0);
        List<ZonedDateTime> found = new ArrayList<>();
        long time = from.toInstant().toEpochMilli();
        while (found.size() < count) {
            time = times.after(time);
            found.add(Instant.ofEpochMilli(time).atZone(schedule.getZone()));
        }
        return found;
    }

}
