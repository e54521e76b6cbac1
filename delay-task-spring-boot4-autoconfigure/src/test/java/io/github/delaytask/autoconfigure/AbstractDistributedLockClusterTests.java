package io.github.delaytask.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.delaytask.DistributedLock;
import io.github.delaytask.actuate.ScheduledLocksEndpoint;
import io.github.delaytask.actuate.ScheduledLocksEndpoint.RunDescriptor;
import io.github.delaytask.actuate.ScheduledLocksEndpoint.RunStatus;
import io.github.delaytask.lock.LastRun;
import io.github.delaytask.testsupport.BootLine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several application contexts, standing for instances of one application, sharing one Redis. Subclasses pick the
 * Redis: embedded by default, the real one in the {@code real-services} group.
 * <p>
 * Each instance runs a cron job every second, by a clock of its own that its scheduler follows too. A run is
 * counted against the tick of its instance's clock, rounded so that a run a little late still counts for its tick.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractDistributedLockClusterTests {

    private LockTestRedis redis;

    private ApplicationContextRunner runner;

    protected abstract LockTestRedis createRedis();

    @BeforeAll
    void startRedis() {
        this.redis = createRedis();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.PROPERTY_PLACEHOLDER,
                    BootLine.REDIS, DelayTaskLockAutoConfiguration.class,
                    DelayTaskLockEndpointAutoConfiguration.class))
            .withPropertyValues(this.redis.properties())
            .withPropertyValues("management.endpoints.web.exposure.include=scheduledlocks");
    }

    @AfterAll
    void stopRedis() {
        if (this.redis != null) {
            this.redis.close();
        }
    }

    @BeforeEach
    void clean() {
        this.redis.deleteKeys();
    }

    @Test
    void twoThenThreeInstancesRunEachTickOfAnEverySecondJobExactlyOnce() {
        Ticks ticks = new Ticks();
        ApplicationContextRunner member = instance(ticks, Duration.ZERO, "500ms");
        ApplicationContextRunner a = member.withPropertyValues("test.instance=a");
        ApplicationContextRunner b = member.withPropertyValues("test.instance=b");
        ApplicationContextRunner c = member.withPropertyValues("test.instance=c");
        a.run((first) -> b.run((second) -> {
            awaitTicks(ticks, 5);
            c.run((third) -> awaitTicks(ticks, 5));
        }));
        Map<Long, List<String>> runsByTick = ticks.runsByTick();
        assertThat(runsByTick).allSatisfy((tick, instances) -> assertThat(instances).as("runs of tick %d", tick)
            .hasSize(1));
        assertThat(runsByTick.keySet()).as("ticks, each second one").hasSizeGreaterThanOrEqualTo(10)
            .containsExactlyElementsOf(contiguous(runsByTick.keySet()));
    }

    @Test
    void instanceWhoseClockIsAheadByLessThanLockAtLeastForCausesNoDoubleRun() {
        // 300 ms < lockAtLeastFor < 1 s - 300 ms: the lock outlasts the offset, and lapses before either instance
        // reaches the next tick
        Ticks ticks = new Ticks();
        long[] exactJoined = new long[1];
        instance(ticks, Duration.ofMillis(300), "500ms").withPropertyValues("test.instance=ahead").run(
                (ahead) -> instance(ticks, Duration.ZERO, "500ms").withPropertyValues("test.instance=exact").run(
                        (exact) -> exactJoined[0] = awaitTicks(ticks, 5)));
        Map<Long, List<String>> runsByTick = ticks.runsByTick();
        assertThat(runsByTick).allSatisfy((tick, instances) -> assertThat(instances).as("runs of tick %d", tick)
            .hasSize(1));
        // the instance that is ahead reaches each tick 300 ms early, so it takes the lock of the tick (unless its
        // scheduler is late by more than that on a busy machine)
        Map<String, Long> runsByInstance = ticks.runsByInstanceSince(exactJoined[0]);
        assertThat(runsByInstance.getOrDefault("ahead", 0L)).isGreaterThan(runsByInstance.getOrDefault("exact", 0L));
    }

    @Test
    void clockOffsetLongerThanLockAtLeastForLetsATickRunTwice() {
        Ticks ticks = new Ticks();
        instance(ticks, Duration.ofMillis(300), "100ms").withPropertyValues("test.instance=ahead").run(
                (ahead) -> instance(ticks, Duration.ZERO, "100ms").withPropertyValues("test.instance=exact").run(
                        (exact) -> await().atMost(Duration.ofSeconds(10))
                            .until(() -> ticks.runsByTick().values().stream().anyMatch((runs) -> runs.size() > 1))));
    }

    @Test
    void endpointOnAnyInstanceShowsTheRunningJobAndRefusesToRunItUntilItEnds() {
        CountDownLatch release = new CountDownLatch(1);
        ApplicationContextRunner member = this.runner.withBean(Export.class, () -> new Export(release));
        member.run((a) -> member.run((b) -> {
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> a.getBean(Export.class).export());
            ScheduledLocksEndpoint endpoint = b.getBean(ScheduledLocksEndpoint.class);
            await().atMost(Duration.ofSeconds(5))
                .until(() -> endpoint.scheduledLock("export").lastRun() != null
                        && endpoint.scheduledLock("export").lastRun().outcome() == LastRun.Outcome.RUNNING);
            RunDescriptor refused = endpoint.runScheduledLock("export", ScheduledLocksEndpoint.RUN);
            assertThat(refused.status()).isEqualTo(RunStatus.LOCKED);
            assertThat(refused.heldBy().outcome()).isEqualTo(LastRun.Outcome.RUNNING);
            assertThat(refused.heldBy().pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(refused.lockRemaining()).isPositive();
            release.countDown();
            running.get(5, TimeUnit.SECONDS);
            assertThat(endpoint.scheduledLock("export").lastRun().outcome()).isEqualTo(LastRun.Outcome.SUCCEEDED);
            RunDescriptor ran = endpoint.runScheduledLock("export", ScheduledLocksEndpoint.RUN);
            assertThat(ran.status()).isEqualTo(RunStatus.RAN);
            assertThat(b.getBean(Export.class).runs()).isEqualTo(1);
        }));
    }

    private ApplicationContextRunner instance(Ticks ticks, Duration clockOffset, String lockAtLeastFor) {
        return this.runner.withUserConfiguration(EverySecond.class)
            .withBean(Ticks.class, () -> ticks)
            .withPropertyValues("test.clock-offset-ms=" + clockOffset.toMillis(),
                    "test.lock-at-least-for=" + lockAtLeastFor);
    }

    /**
     * Waits until {@code count} ticks have run from now, when the latest instance has joined.
     * @return now
     */
    private static long awaitTicks(Ticks ticks, int count) {
        long from = System.currentTimeMillis();
        await().atMost(Duration.ofSeconds(count + 5)).until(() -> ticks.ticksRunSince(from) >= count);
        return from;
    }

    private static List<Long> contiguous(Set<Long> ticks) {
        long first = ticks.stream().min(Long::compare).orElseThrow();
        long last = ticks.stream().max(Long::compare).orElseThrow();
        return java.util.stream.LongStream.rangeClosed(first, last).boxed().toList();
    }

    /** The runs of every instance, shared by the test's contexts. */
    static class Ticks {

        private final List<Run> runs = new CopyOnWriteArrayList<>();

        void record(String instance, long clockMillis) {
            // a cron run starts at or a little after its tick: up to 800 ms late still counts for it
            this.runs.add(new Run(instance, Math.floorDiv(clockMillis + 200, 1000), System.currentTimeMillis()));
        }

        Map<Long, List<String>> runsByTick() {
            return this.runs.stream()
                .collect(Collectors.groupingBy(Run::tick, TreeMap::new,
                        Collectors.mapping(Run::instance, Collectors.toList())));
        }

        long ticksRunSince(long realMillis) {
            return this.runs.stream().filter((run) -> run.realMillis() >= realMillis).count();
        }

        Map<String, Long> runsByInstanceSince(long realMillis) {
            return this.runs.stream()
                .filter((run) -> run.realMillis() >= realMillis)
                .collect(Collectors.groupingBy(Run::instance, Collectors.counting()));
        }

        record Run(String instance, long tick, long realMillis) {
        }

    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class EverySecond {

        @Bean
        Clock clock(Environment environment) {
            return Clock.offset(Clock.systemUTC(),
                    Duration.ofMillis(environment.getRequiredProperty("test.clock-offset-ms", Long.class)));
        }

        @Bean
        ThreadPoolTaskScheduler taskScheduler(Clock clock) {
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            scheduler.setClock(clock);
            scheduler.setThreadNamePrefix("cluster-test-");
            return scheduler;
        }

        @Bean
        EverySecondJob everySecondJob(Ticks ticks, Clock clock, Environment environment) {
            return new EverySecondJob(ticks, clock, environment.getRequiredProperty("test.instance"));
        }

    }

    static class EverySecondJob {

        private final Ticks ticks;

        private final Clock clock;

        private final String instance;

        EverySecondJob(Ticks ticks, Clock clock, String instance) {
            this.ticks = ticks;
            this.clock = clock;
            this.instance = instance;
        }

        @Scheduled(cron = "* * * * * *")
        @DistributedLock(name = "every-second", lockAtMostFor = "10s", lockAtLeastFor = "${test.lock-at-least-for}")
        public void run() {
            this.ticks.record(this.instance, this.clock.millis());
        }

    }

    static class Export {

        private final CountDownLatch release;

        private volatile int runs;

        Export(CountDownLatch release) {
            this.release = release;
        }

        @DistributedLock(name = "export", lockAtMostFor = "30s")
        public void export() {
            try {
                this.release.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            this.runs++;
        }

        public int runs() {
            return this.runs;
        }

    }

}
