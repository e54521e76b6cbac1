package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener's cluster-wide limits across three instances of one application: never more of its tasks run at the
 * same time than its cluster-wide concurrency, and never more start within a period than its cluster-wide rate, as
 * the handlers' own start and end times show. On an embedded Redis and H2.
 */
class ClusterLimitsTests {

    private static final int TYPE = 41;

    private static final int RATED = 42;

    private static final int TASKS = 30;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeEach
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner().withUserConfiguration(PartnerCalls.class, RatedCalls.class);
    }

    @AfterEach
    void stopBackend() {
        this.backend.close();
    }

    @Test
    void threeInstancesNeverRunMoreTasksOfAListenerAtOnceThanItsClusterConcurrency() {
        this.runner.run((first) -> this.runner.run((second) -> this.runner.run((third) -> {
            List<PartnerCalls> instances = List.of(first.getBean(PartnerCalls.class),
                    second.getBean(PartnerCalls.class), third.getBean(PartnerCalls.class));
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                tasks.add(DelayTask.builder(TYPE).build());
            }
            first.getBean(DelayTaskService.class).addTasks(tasks);
            await().atMost(Duration.ofSeconds(30))
                .until(() -> instances.stream().mapToInt((instance) -> instance.runs.size()).sum() == TASKS);
            List<long[]> runs = new ArrayList<>();
            instances.forEach((instance) -> runs.addAll(instance.runs));
            // never a fourth; more than one, or the limit was never put to the test
            assertThat(mostAtOnce(runs)).as("most runs at once, across the instances").isBetween(2, 3);
            assertThat(instances).as("instances that ran some").filteredOn((instance) -> !instance.runs.isEmpty())
                .hasSizeGreaterThan(1);
        })));
    }

    @Test
    void threeInstancesStartNoMoreTasksOfAListenerWithinAPeriodThanItsClusterRate() {
        this.runner.run((first) -> this.runner.run((second) -> this.runner.run((third) -> {
            List<RatedCalls> instances = List.of(first.getBean(RatedCalls.class), second.getBean(RatedCalls.class),
                    third.getBean(RatedCalls.class));
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < 3 * RatedCalls.PER_SECOND; i++) {
                tasks.add(DelayTask.builder(RATED).build());
            }
            first.getBean(DelayTaskService.class).addTasks(tasks);
            await().atMost(Duration.ofSeconds(30))
                .until(() -> instances.stream().mapToInt((instance) -> instance.starts.size()).sum() == tasks.size());
            List<Long> starts = new ArrayList<>();
            instances.forEach((instance) -> starts.addAll(instance.starts));
            Collections.sort(starts);
            // a start follows its claim by the dispatch's own delay: a window 100 ms short of the period leaves room
            // for it, and a second's worth more in any such window would still show
            assertThat(mostWithin(starts, TimeUnit.MILLISECONDS.toNanos(900))).as("most starts within 900 ms")
                .isLessThanOrEqualTo(RatedCalls.PER_SECOND);
            assertThat(TimeUnit.NANOSECONDS.toMillis(starts.get(starts.size() - 1) - starts.get(0)))
                .as("ms from the first start to the last, for three seconds' worth").isGreaterThanOrEqualTo(1900);
        })));
    }

    @Test
    void oneInstanceGivenABurstLargerThanItsClusterRateRunsItAtThatRate() {
        this.runner.run((context) -> {
            RatedCalls instance = context.getBean(RatedCalls.class);
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < 3 * RatedCalls.PER_SECOND; i++) {
                tasks.add(DelayTask.builder(RATED).build());
            }
            context.getBean(DelayTaskService.class).addTasks(tasks);
            // three seconds' worth; before, the first claim the rate cut short asked for its next look only when its
            // lease ran out, 30 s later
            await().atMost(Duration.ofSeconds(10)).until(() -> instance.starts.size() == tasks.size());
        });
    }

    /** The most of the given sorted times within any window of the given length. */
    private static int mostWithin(List<Long> sorted, long window) {
        int most = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (sorted.get(to) - sorted.get(from) >= window) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        return most;
    }

    /** The most runs under way at one moment: starts count up, ends down, an end before a start at one instant. */
    private static int mostAtOnce(List<long[]> runs) {
        TreeMap<Long, Integer> changes = new TreeMap<>();
        for (long[] run : runs) {
            changes.merge(run[0], 1, Integer::sum);
            changes.merge(run[1], -1, Integer::sum);
        }
        int running = 0;
        int most = 0;
        for (Map.Entry<Long, Integer> change : changes.entrySet()) {
            running += change.getValue();
            most = Math.max(most, running);
        }
        return most;
    }

    /** A partner whose API allows three calls at once, each taking a while. */
    static class PartnerCalls {

        /** Each run's start and end, nanos of {@link System#nanoTime()}, one JVM's clock for every instance. */
        final List<long[]> runs = new CopyOnWriteArrayList<>();

        @DelayTaskListener(taskType = TYPE, concurrency = "4", clusterConcurrency = "3")
        void call(DelayTask task) throws InterruptedException {
            long start = System.nanoTime();
            // the partner's answer takes this long: the work, not a wait for anything
            Thread.sleep(150);
            this.runs.add(new long[] { start, System.nanoTime() });
        }

    }

    /** A partner whose API allows twenty calls a second. */
    static class RatedCalls {

        static final int PER_SECOND = 20;

        /** Each run's start, nanos of {@link System#nanoTime()}, one JVM's clock for every instance. */
        final List<Long> starts = new CopyOnWriteArrayList<>();

        @DelayTaskListener(taskType = RATED, clusterRate = "20/1s")
        void call(DelayTask task) {
            this.starts.add(System.nanoTime());
        }

    }

}
