package io.github.delaytask.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.baomidou.mybatisplus.core.incrementer.DefaultIdentifierGenerator;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.ScheduleDetails;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.TaskSchedule.CatchUp;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Recurring schedules across instances: each time runs once however many instances keep the schedule, times missed
 * while every instance was down are caught up as the schedule's policy says, and a change made on one instance
 * takes effect on the others. Subclasses pick the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractScheduleTests {

    static final int TICKS = 1;

    /** The check interval of most instances here; the tasks of a schedule's times are stored twice that ahead. */
    static final Duration CHECK = Duration.ofSeconds(1);

    TestBackend backend;

    protected abstract TestBackend createBackend();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    /** An instance whose handler tells the given runs, looking at the schedules once a {@link #CHECK}. */
    private ApplicationContextRunner instance(String name, Runs runs) {
        // ids of a worker of its own, as an instance of its own process would have
        long worker = Math.floorMod(name.hashCode(), 32);
        return this.backend.applicationRunner()
            .withBean(IdentifierGenerator.class, () -> new DefaultIdentifierGenerator(worker, worker))
            .withBean(Runs.class, () -> runs)
            .withBean(Handler.class)
            .withPropertyValues("test.instance=" + name,
                    "delay-task.schedules.check-interval=" + CHECK.toSeconds() + "s");
    }

    /** An instance that neither handles tasks nor looks at the schedules: it only changes them. */
    private ApplicationContextRunner admin() {
        return this.backend.applicationRunner()
            .withBean(IdentifierGenerator.class, () -> new DefaultIdentifierGenerator(31, 31))
            .withPropertyValues("delay-task.listener.enabled=false", "delay-task.schedules.enabled=false");
    }

    private static String name(String stem) {
        return stem + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void twoInstancesDeclaringOneScheduleRunEachOfItsTimesOnceAndSkipNone() {
        String name = name("tick");
        TaskSchedule schedule = TaskSchedule.every(name, Duration.ofSeconds(1)).taskType(TICKS).parameters(name)
            .build();
        Runs runs = new Runs();
        instance("a", runs).withBean(TaskSchedule.class, () -> schedule).run((a) -> instance("b", runs)
            .withBean(TaskSchedule.class, () -> schedule)
            .run((b) -> {
                await().atMost(Duration.ofSeconds(30)).until(() -> runs.times(name).size() >= 8);
                List<Long> times = runs.times(name);
                assertThat(runs.times(name)).doesNotHaveDuplicates();
                assertThat(runs.keysNameTheirTimes(name)).isTrue();
                for (int i = 1; i < 8; i++) {
                    assertThat(times.get(i) - times.get(i - 1)).as("time %d after time %d", i, i - 1)
                        .isEqualTo(1000);
                }
                assertThat(a.getBean(DelayTaskService.class).findSchedules())
                    .filteredOn((stored) -> stored.schedule().getName().equals(name))
                    .singleElement()
                    .satisfies((stored) -> {
                        assertThat(stored.schedule()).isEqualTo(schedule);
                        assertThat(stored.declaredInCode()).isTrue();
                        assertThat(stored.paused()).isFalse();
                    });
            }));
    }

    @ParameterizedTest
    @EnumSource(CatchUp.class)
    void timesMissedWhileEveryInstanceWasDownAreCaughtUpAsTheSchedulesPolicySays(CatchUp catchUp) {
        String name = name("down-" + catchUp.name().toLowerCase());
        TaskSchedule schedule = TaskSchedule.every(name, Duration.ofSeconds(1)).taskType(TICKS).parameters(name)
            .catchUp(catchUp)
            .build();
        Runs runs = new Runs();
        admin().run((admin) -> {
            DelayTaskService service = admin.getBean(DelayTaskService.class);
            instance("a", runs).withBean(TaskSchedule.class, () -> schedule)
                .run((a) -> await().atMost(Duration.ofSeconds(20)).until(() -> !runs.times(name).isEmpty()));
            // every instance that keeps the schedule is down: its next time stays where it was
            long next = find(service, name).nextTime().toEpochMilli();
            // a time is missed once it is older than the horizon (twice the check interval) when looked at
            long tolerance = CHECK.multipliedBy(2).toMillis();
            await().atMost(Duration.ofSeconds(20))
                .until(() -> System.currentTimeMillis() > next + tolerance + 2_000 + 200);
            long restartedAt = System.currentTimeMillis();
            // the times surely missed: older than the tolerance when the first look after the restart began
            List<Long> missed = new ArrayList<>();
            for (long time = next; time < restartedAt - tolerance; time += 1000) {
                missed.add(time);
            }
            assertThat(missed).hasSizeGreaterThanOrEqualTo(2);
            instance("a", runs).withBean(TaskSchedule.class, () -> schedule).run((a) -> {
                // a time after the restart ran: the look that caught up stored its tasks before
                await().atMost(Duration.ofSeconds(20))
                    .until(() -> runs.times(name).stream().anyMatch((time) -> time >= restartedAt));
                if (catchUp == CatchUp.EACH) {
                    await().atMost(Duration.ofSeconds(20)).until(() -> runs.times(name).containsAll(missed));
                }
                List<Long> ranOfMissed = runs.times(name).stream().filter(missed::contains).toList();
                switch (catchUp) {
                    case ONCE -> assertThat(ranOfMissed).containsExactly(next);
                    case EACH -> assertThat(ranOfMissed).containsExactlyElementsOf(missed);
                    case SKIP -> assertThat(ranOfMissed).isEmpty();
                }
                assertThat(runs.times(name)).doesNotHaveDuplicates();
            });
        });
    }

    @Test
    void aScheduleChangedOnOneInstanceTakesEffectOnTheOtherAndItsPendingTaskIsCancelled() {
        String name = name("changed");
        Runs runs = new Runs();
        admin().run((admin) -> instance("a", runs)
            .withPropertyValues("delay-task.schedules.check-interval=5s")
            .run((a) -> {
                DelayTaskService changer = admin.getBean(DelayTaskService.class);
                // saved where no schedule is looked at: the task of its first time, its only one within the horizon
                // of the instance that saved it, is stored at once
                assertThat(changer.saveSchedule(TaskSchedule.every(name, Duration.ofSeconds(15)).taskType(TICKS)
                    .parameters(name + ":v1")
                    .build())).isTrue();
                long first = find(changer, name).nextTime().toEpochMilli() - 15_000;
                long pending = changer.findTask(TaskSchedule.bizKeyOf(name, first))
                    .map(TaskDetails::taskId)
                    .orElseThrow();
                assertThat(changer.saveSchedule(TaskSchedule.every(name, Duration.ofSeconds(1)).taskType(TICKS)
                    .parameters(name + ":v2")
                    .build())).isTrue();
                assertThat(changer.findTask(pending)).map(TaskDetails::status).contains(TaskStatus.CANCELLED);
                await().atMost(Duration.ofSeconds(20)).until(() -> runs.times(name).size() >= 3);
                // the instance that handles the tasks runs the new definition's, and never the old one's
                assertThat(runs.parameters(name)).containsOnly(name + ":v2");
            }));
    }

    @Test
    void aPausedScheduleAddsNoTaskUntilResumedAndARemovedOneIsGone() {
        String name = name("paused");
        Runs runs = new Runs();
        instance("a", runs).run((a) -> {
            DelayTaskService service = a.getBean(DelayTaskService.class);
            service.saveSchedule(TaskSchedule.every(name, Duration.ofSeconds(1)).taskType(TICKS).parameters(name)
                .build());
            await().atMost(Duration.ofSeconds(20)).until(() -> !runs.times(name).isEmpty());

            assertThat(service.pauseSchedule(name)).isTrue();
            long pausedAt = System.currentTimeMillis();
            assertThat(service.pauseSchedule(name)).isFalse();
            assertThat(find(service, name).paused()).isTrue();
            // its tasks of later times were cancelled: none of them runs, over three of its intervals
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> runs.times(name).stream().noneMatch((time) -> time > pausedAt));

            long resumedAt = System.currentTimeMillis();
            assertThat(service.resumeSchedule(name)).isTrue();
            await().atMost(Duration.ofSeconds(20))
                .until(() -> runs.times(name).stream().anyMatch((time) -> time > resumedAt));

            assertThat(service.removeSchedule(name)).isTrue();
            assertThat(service.removeSchedule(name)).isFalse();
            assertThat(service.findSchedules()).noneMatch((stored) -> stored.schedule().getName().equals(name));
        });
    }

    @Test
    void concurrentSavesOfOneNewScheduleStoreItOnceAndEachReturns() throws Exception {
        String name = name("raced");
        TaskSchedule schedule = TaskSchedule.every(name, Duration.ofHours(1)).taskType(TICKS).build();
        admin().run((admin) -> {
            DelayTaskService service = admin.getBean(DelayTaskService.class);
            ExecutorService threads = Executors.newFixedThreadPool(8);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Boolean>> saves = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    saves.add(threads.submit(() -> {
                        start.await();
                        return service.saveSchedule(schedule);
                    }));
                }
                start.countDown();
                List<Boolean> stored = new ArrayList<>();
                for (Future<Boolean> save : saves) {
                    stored.add(save.get(30, TimeUnit.SECONDS));
                }
                // one stored it; the others found it stored as they would store it
                assertThat(stored).containsOnlyOnce(true);
                assertThat(service.findSchedules()).filteredOn((found) -> found.schedule().getName().equals(name))
                    .singleElement()
                    .extracting(ScheduleDetails::schedule)
                    .isEqualTo(schedule);
            }
            finally {
                threads.shutdownNow();
            }
        });
    }

    @Test
    void aScheduleSavedWithinACallersTransactionIsStoredInATransactionOfItsOwn() {
        String name = name("own");
        admin().run((admin) -> {
            DelayTaskService service = admin.getBean(DelayTaskService.class);
            TransactionTemplate transaction = new TransactionTemplate(
                    admin.getBean(PlatformTransactionManager.class));
            transaction.executeWithoutResult((status) -> {
                service.saveSchedule(TaskSchedule.every(name, Duration.ofHours(1)).taskType(TICKS).build());
                status.setRollbackOnly();
            });
            assertThat(find(service, name)).isNotNull();
        });
    }

    @Test
    void aDeclarationLeftOutOfTheCodePausesItsScheduleUntilDeclaredAgain() {
        String name = name("declared");
        TaskSchedule schedule = TaskSchedule.every(name, Duration.ofHours(1)).taskType(TICKS).build();
        Runs runs = new Runs();
        admin().run((admin) -> {
            DelayTaskService service = admin.getBean(DelayTaskService.class);
            instance("a", runs).withBean(TaskSchedule.class, () -> schedule)
                .run((a) -> assertThat(find(service, name).paused()).isFalse());
            instance("b", runs).run((b) -> assertThat(find(service, name).paused()).isTrue());
            instance("a", runs).withBean(TaskSchedule.class, () -> schedule)
                .run((a) -> assertThat(find(service, name).paused()).isFalse());
        });
    }

    @Test
    void aChangedDeclarationUpdatesTheStoredScheduleAndAnUnchangedOneLeavesAChangeMadeAtRunTime() {
        String name = name("redeclared");
        TaskSchedule declared = TaskSchedule.every(name, Duration.ofHours(1)).taskType(TICKS).build();
        TaskSchedule changedAtRunTime = TaskSchedule.every(name, Duration.ofHours(2)).taskType(TICKS).build();
        TaskSchedule redeclared = TaskSchedule.every(name, Duration.ofHours(3)).taskType(TICKS).build();
        Runs runs = new Runs();
        admin().run((admin) -> {
            DelayTaskService service = admin.getBean(DelayTaskService.class);
            instance("a", runs).withBean(TaskSchedule.class, () -> declared)
                .run((a) -> assertThat(find(service, name)).isNotNull());
            assertThat(service.saveSchedule(changedAtRunTime)).isTrue();
            instance("a", runs).withBean(TaskSchedule.class, () -> declared).run((a) -> {
                // started, so the declarations are applied; this one was before, and the change made since stays
                assertThat(find(service, name).schedule()).isEqualTo(changedAtRunTime);
            });
            instance("a", runs).withBean(TaskSchedule.class, () -> redeclared)
                .run((a) -> assertThat(find(service, name).schedule()).isEqualTo(redeclared));
        });
    }

    private static ScheduleDetails find(DelayTaskService service, String name) {
        return service.findSchedules().stream()
            .filter((stored) -> stored.schedule().getName().equals(name))
            .findFirst()
            .orElse(null);
    }

    /**
     * What the handlers of every instance of a test ran. The tasks of a schedule have its name in their parameters
     * here, their execute time is the schedule's time they are for, and their business key names both.
     */
    static final class Runs {

        final List<Run> runs = new CopyOnWriteArrayList<>();

        private List<Run> of(String name) {
            return this.runs.stream().filter((run) -> run.parameters().startsWith(name)).toList();
        }

        /** The times run, in order, a time run twice twice. */
        List<Long> times(String name) {
            return of(name).stream().map(Run::time).sorted().toList();
        }

        List<String> parameters(String name) {
            return of(name).stream().map(Run::parameters).toList();
        }

        /** Whether each run's business key names the schedule and the time it ran for. */
        boolean keysNameTheirTimes(String name) {
            return of(name).stream().allMatch((run) -> TaskSchedule.bizKeyOf(name, run.time()).equals(run.key()));
        }

    }

    record Run(String instance, long time, String parameters, @Nullable String key) {

    }

    static class Handler {

        private final Runs runs;

        private final String instance;

        Handler(Runs runs, @Value("${test.instance}") String instance) {
            this.runs = runs;
            this.instance = instance;
        }

        @DelayTaskListener(taskType = TICKS)
        void run(DelayTask task) {
            byte[] parameters = task.getParameters();
            this.runs.runs.add(new Run(this.instance, task.getExecuteTime(),
                    (parameters != null) ? new String(parameters, StandardCharsets.UTF_8) : "", task.getBizKey()));
        }

    }

}
