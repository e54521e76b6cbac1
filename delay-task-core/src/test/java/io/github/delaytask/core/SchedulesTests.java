package io.github.delaytask.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.github.delaytask.fixtures.MovingClock;
import io.github.delaytask.DelayTask;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.store.ScheduleStore;
import io.github.delaytask.store.StoredSchedule;
import io.github.delaytask.store.StoredSchedule.State;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The decisions of {@link Schedules} on an in-memory twin of the store, on a clock the test moves: which instance
 * stores a time's task, what a change cancels, and what a declaration changes.
 */
class SchedulesTests {

    private static final Instant NOW = Instant.parse("2026-12-07T10:00:00Z");

    private static final Duration HORIZON = Duration.ofSeconds(20);

    private final MemoryScheduleStore store = new MemoryScheduleStore();

    private final RecordedTasks tasks = new RecordedTasks();

    private final MovingClock clock = new MovingClock(NOW);

    private final Schedules schedules = new Schedules(this.store, this.tasks, this.clock, HORIZON);

    @Test
    void anInstanceThatReadTheScheduleBeforeAnotherStoredItsTimesStoresNothing() {
        this.schedules.save(TaskSchedule.every("tick", Duration.ofSeconds(10)).build());
        this.clock.set(NOW.plusSeconds(15));
        this.tasks.added.clear();
        StoredSchedule read = this.store.find("tick");
        // another instance looks first: it stores the task of 10:00:30 and moves the schedule on
        assertThat(this.schedules.keep()).isOne();
        // this instance, with what it read before, finds the version moved on, and stores nothing
        Schedules late = new Schedules(new StaleDue(this.store, read), this.tasks, this.clock, HORIZON);
        assertThat(late.keep()).isZero();
        assertThat(this.tasks.added).extracting(DelayTask::getBizKey)
            .containsExactly("schedule:tick@2026-12-07T10:00:30Z");
    }

    @Test
    void theFirstLookStoresTheTasksOfTheTimesWithinTheHorizonEachNamedForItsTime() {
        this.schedules.save(TaskSchedule.every("tick", Duration.ofSeconds(10)).taskType(3).priority(2)
            .parameters("p")
            .build());
        assertThat(this.tasks.added).extracting(DelayTask::getBizKey)
            .containsExactly("schedule:tick@2026-12-07T10:00:10Z", "schedule:tick@2026-12-07T10:00:20Z");
        assertThat(this.tasks.added).allSatisfy((task) -> {
            assertThat(task.getTaskType()).isEqualTo(3);
            assertThat(task.getPriority()).isEqualTo(2);
            assertThat(task.getParametersAsString()).isEqualTo("p");
        });
        assertThat(this.store.find("tick").nextTime()).isEqualTo(NOW.plusSeconds(30).toEpochMilli());
    }

    @Test
    void aChangedScheduleCancelsTheTasksOfItsOldTimesStillToComeAndStartsAfresh() {
        this.schedules.save(TaskSchedule.every("tick", Duration.ofSeconds(10)).build());
        assertThat(this.schedules.save(TaskSchedule.every("tick", Duration.ofSeconds(15)).build())).isTrue();
        assertThat(this.tasks.cancelled).containsExactly("schedule:tick@2026-12-07T10:00:10Z",
                "schedule:tick@2026-12-07T10:00:20Z");
        assertThat(this.tasks.added).extracting(DelayTask::getBizKey).endsWith("schedule:tick@2026-12-07T10:00:15Z");
    }

    @Test
    void aLookThatReadAScheduleBeforeItWasRemovedAndSavedAgainLeavesTheNewOneAlone() {
        this.schedules.save(TaskSchedule.every("tick", Duration.ofSeconds(10)).build());
        this.clock.set(NOW.plusSeconds(15));
        StoredSchedule read = this.store.find("tick");
        this.schedules.remove("tick");
        TaskSchedule again = TaskSchedule.every("tick", Duration.ofMinutes(5)).build();
        this.schedules.save(again);
        this.tasks.added.clear();
        Schedules late = new Schedules(new StaleDue(this.store, read), this.tasks, this.clock, HORIZON);
        assertThat(late.keep()).isZero();
        assertThat(this.tasks.added).isEmpty();
        assertThat(this.store.find("tick").schedule()).isEqualTo(again);
    }

    @Test
    void aScheduleWhoseParametersAreLargerThanATasksMayBeIsRefusedWhetherSavedOrDeclared() {
        Schedules limited = new Schedules(this.store, this.tasks, this.clock, HORIZON, 4);
        assertThatIllegalArgumentException()
            .isThrownBy(() -> limited.save(TaskSchedule.every("big", Duration.ofSeconds(10)).parameters("12345")
                .build()))
            .withMessageContaining("delay-task.max-parameters-size, 4");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> limited.declare(List.of(TaskSchedule.every("small", Duration.ofSeconds(10)).build(),
                    TaskSchedule.every("big", Duration.ofSeconds(10)).parameters("12345").build())))
            .withMessageContaining("'big'");
        assertThat(this.store.find("small")).as("none of the declarations is stored").isNull();
        assertThat(this.store.find("big")).isNull();
        limited.save(TaskSchedule.every("fits", Duration.ofSeconds(10)).parameters("1234").build());
        assertThat(this.store.find("fits")).isNotNull();
    }

    @Test
    void aScheduleIsFoundByItsNameAlone() {
        this.schedules.save(TaskSchedule.every("tick", Duration.ofSeconds(10)).build());
        this.schedules.save(TaskSchedule.every("tock", Duration.ofSeconds(20)).build());
        assertThat(this.schedules.find("tock").schedule().getInterval()).isEqualTo(Duration.ofSeconds(20));
        assertThat(this.schedules.find("tock").paused()).isFalse();
        assertThat(this.schedules.find("none")).isNull();
    }

    @Test
    void savingTheSameScheduleAgainChangesNothing() {
        this.schedules.save(TaskSchedule.every("tick", Duration.ofSeconds(10)).build());
        int version = this.store.find("tick").version();
        assertThat(this.schedules.save(TaskSchedule.every("tick", Duration.ofSeconds(10)).build())).isFalse();
        assertThat(this.store.find("tick").version()).isEqualTo(version);
        assertThat(this.tasks.cancelled).isEmpty();
    }

    @Test
    void anUnchangedDeclarationLeavesAChangeMadeAtRunTimeAndAChangedOneReplacesIt() {
        TaskSchedule declared = TaskSchedule.every("tick", Duration.ofHours(1)).build();
        this.schedules.declare(List.of(declared));
        TaskSchedule changed = TaskSchedule.every("tick", Duration.ofHours(2)).build();
        this.schedules.save(changed);
        this.schedules.declare(List.of(declared));
        assertThat(this.store.find("tick").schedule()).isEqualTo(changed);
        TaskSchedule redeclared = TaskSchedule.every("tick", Duration.ofHours(3)).build();
        this.schedules.declare(List.of(redeclared));
        assertThat(this.store.find("tick").schedule()).isEqualTo(redeclared);
    }

    @Test
    void aDeclarationLeftOutPausesItsScheduleAndLeavesThoseSavedAtRunTime() {
        this.schedules.declare(List.of(TaskSchedule.every("declared", Duration.ofHours(1)).build()));
        this.schedules.save(TaskSchedule.every("saved", Duration.ofHours(1)).build());
        this.schedules.declare(List.of());
        assertThat(this.store.find("declared").state()).isEqualTo(State.UNDECLARED);
        assertThat(this.store.find("saved").state()).isEqualTo(State.ACTIVE);
    }

    @Test
    void aPausedScheduleIsNotLookedAtAndAResumedOneGoesOnFromItsNextTimeAfterNowSkippingThoseMissed() {
        this.schedules.save(TaskSchedule.every("tick", Duration.ofSeconds(10)).build());
        this.tasks.added.clear();
        assertThat(this.schedules.pause("tick")).isTrue();
        assertThat(this.tasks.cancelled).hasSize(2);
        assertThat(this.schedules.keep()).isZero();
        // resumed ten minutes later: the times missed while paused are skipped, whatever its catch-up
        this.clock.set(NOW.plusSeconds(600));
        assertThat(this.schedules.resume("tick")).isTrue();
        assertThat(this.tasks.added).extracting(DelayTask::getExecuteTime)
            .containsExactly(NOW.plusSeconds(610).toEpochMilli(), NOW.plusSeconds(620).toEpochMilli());
    }

    /** An in-memory twin of the schedules' table: the version fences every write. */
    static class MemoryScheduleStore implements ScheduleStore {

        final Map<String, StoredSchedule> rows;

        MemoryScheduleStore() {
            this(new TreeMap<>());
        }

        MemoryScheduleStore(Map<String, StoredSchedule> rows) {
            this.rows = rows;
        }

        @Override
        public List<StoredSchedule> findAll() {
            return List.copyOf(this.rows.values());
        }

        @Override
        public @Nullable StoredSchedule find(String name) {
            return this.rows.get(name);
        }

        @Override
        public List<StoredSchedule> findDue(long until) {
            return this.rows.values().stream()
                .filter((row) -> row.state() == State.ACTIVE && row.nextTime() <= until)
                .toList();
        }

        @Override
        public boolean insert(StoredSchedule schedule) {
            return this.rows.putIfAbsent(schedule.name(), schedule) == null;
        }

        @Override
        public boolean update(StoredSchedule schedule) {
            StoredSchedule stored = this.rows.get(schedule.name());
            if (stored == null || stored.version() != schedule.version()) {
                return false;
            }
            this.rows.put(schedule.name(), new StoredSchedule(schedule.schedule(), schedule.state(),
                    schedule.declaration(), schedule.nextTime(), schedule.version() + 1));
            return true;
        }

        @Override
        public boolean delete(String name, int version) {
            StoredSchedule stored = this.rows.get(name);
            return stored != null && stored.version() == version && this.rows.remove(name) != null;
        }

        @Override
        public <T> T inTransaction(Supplier<T> work) {
            return work.get();
        }

        @Override
        public List<String> missingSchema() {
            return List.of();
        }

    }

    /** The store as an instance sees it that read the due schedules before another instance stored their tasks. */
    static final class StaleDue extends MemoryScheduleStore {

        private final StoredSchedule read;

        StaleDue(MemoryScheduleStore store, StoredSchedule read) {
            super(store.rows);
            this.read = read;
        }

        @Override
        public List<StoredSchedule> findDue(long until) {
            return List.of(this.read);
        }

    }


    static final class RecordedTasks implements Schedules.Tasks {

        final List<DelayTask> added = new ArrayList<>();

        final List<String> cancelled = new ArrayList<>();

        @Override
        public void add(List<DelayTask> tasks) {
            this.added.addAll(tasks);
        }

        @Override
        public void cancel(String bizKey) {
            this.cancelled.add(bizKey);
        }

    }

}
