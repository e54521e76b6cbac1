package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
 * same time than its cluster-wide concurrency, as the handlers count themselves, and never more start within a period
 * than its cluster-wide rate, as their start times show. On an embedded Redis and H2.
 */
class ClusterLimitsTests {

    private static final int TYPE = 41;

    private static final int RATED = 42;

    private static final int TASKS = 30;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    /** The partner of every instance of a test. */
    private final Partner partner = new Partner();

    @BeforeEach
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner()
            .withBean(Partner.class, () -> this.partner)
            .withUserConfiguration(PartnerCalls.class, RatedCalls.class);
    }

    @AfterEach
    void stopBackend() {
        this.backend.close();
    }

    @Test
    void threeInstancesNeverRunMoreTasksOfAListenerAtOnceThanItsClusterConcurrency() {
        Partner partner = this.partner;
        this.runner.run((first) -> this.runner.run((second) -> this.runner.run((third) -> {
            List<PartnerCalls> instances = List.of(first.getBean(PartnerCalls.class),
                    second.getBean(PartnerCalls.class), third.getBean(PartnerCalls.class));
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                tasks.add(DelayTask.builder(TYPE).build());
            }
            try {
                first.getBean(DelayTaskService.class).addTasks(tasks);
                await().atMost(Duration.ofSeconds(10)).until(() -> partner.running.get() == 3);
                // three calls wait for the partner's answers: each instance, with room for four, looks again every
                // 100 ms, and none starts a fourth
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> partner.running.get() == 3);
            }
            finally {
                partner.answers.release(TASKS);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> partner.answered.get() == TASKS);
            assertThat(partner.most).as("most calls at once, across the instances").hasValue(3);
            assertThat(instances).as("instances that ran some").filteredOn((instance) -> instance.runs.get() > 0)
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

    /** A partner whose API allows three calls at once, answering when the test says; one for every instance. */
    static class Partner {

        final Semaphore answers = new Semaphore(0);

        final AtomicInteger running = new AtomicInteger();

        final AtomicInteger most = new AtomicInteger();

        final AtomicInteger answered = new AtomicInteger();

        void call() throws InterruptedException {
            this.most.accumulateAndGet(this.running.incrementAndGet(), Math::max);
            try {
                this.answers.acquire();
            }
            finally {
                this.running.decrementAndGet();
                this.answered.incrementAndGet();
            }
        }

    }

    /** The listener that calls the partner, on each instance. */
    static class PartnerCalls {

        final AtomicInteger runs = new AtomicInteger();

        private final Partner partner;

        PartnerCalls(Partner partner) {
            this.partner = partner;
        }

        @DelayTaskListener(taskType = TYPE, concurrency = "4", clusterConcurrency = "3")
        void call(DelayTask task) throws InterruptedException {
            this.runs.incrementAndGet();
            this.partner.call();
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
