package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskEvents;
import io.github.delaytask.listener.DelayTaskListenerEndpointRegistry;
import io.github.delaytask.metrics.DelayTaskMeters;
import io.github.delaytask.metrics.QueueStatsSampler;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.testsupport.TestBackend;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DelayTaskMetricsAutoConfiguration}: the meters of an application with a {@link MeterRegistry}, on
 * embedded Redis and H2.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(OutputCaptureExtension.class)
class DelayTaskMetricsAutoConfigurationTests {

    static final int RECORDED = 61;

    static final int FAILING = 62;

    static final int BLOCKING = 63;

    static final int NO_LISTENER = 64;

    static final int LATER = 65;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner()
            .withConfiguration(AutoConfigurations.of(DelayTaskMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.retry.initial-delay=50ms", "delay-task.listener.poll-interval=50ms");
    }

    @AfterAll
    void stopBackend() {
        this.backend.close();
    }

    @BeforeEach
    void clean() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            jdbc.update("DELETE FROM taskinfo");
            jdbc.update("DELETE FROM taskinfo_logs");
        });
        this.backend.deleteRedisKeys();
    }

    @Test
    void addsAreCountedOnceCommittedWheneverDueAndRunsOnceRecordedWithTheirLatenessAndDuration() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            for (int i = 0; i < 3; i++) {
                service.addTask(DelayTask.builder(RECORDED).delay(Duration.ZERO).build());
            }
            service.addTask(DelayTask.builder(LATER).delay(Duration.ofHours(1)).build());

            assertThat(counter(context, "delaytask.tasks.added", RECORDED)).isEqualTo(3);
            assertThat(counter(context, "delaytask.tasks.added", LATER)).as("beyond the preload window").isEqualTo(1);
            await().atMost(Duration.ofSeconds(30))
                .until(() -> counter(context, "delaytask.tasks.completed", RECORDED, "outcome", "executed") == 3);
            assertThat(timerCount(context, "delaytask.lateness", RECORDED)).isEqualTo(3);
            assertThat(timerCount(context, "delaytask.listener", RECORDED, "outcome", "success")).isEqualTo(3);
            assertThat(timerCount(context, "delaytask.listener", RECORDED, "outcome", "failure")).isZero();
            assertThat(counter(context, "delaytask.tasks.completed", RECORDED, "outcome", "retried")).isZero();
            assertThat(counter(context, "delaytask.tasks.completed", RECORDED, "outcome", "dead")).isZero();
        });
    }

    @Test
    void aQueuesMetersAreTaggedWithTheNameItsListenerGivesItsTaskTypeAndOtherwiseWithItsNumber() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofHours(1)).build());
            service.addTask(DelayTask.builder(LATER).delay(Duration.ofHours(1)).build());
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("delaytask.tasks.added").tags(queue(RECORDED)).counter().getId()
                .getTag("task.name"))
                .isEqualTo("recorded");
            assertThat(registry.get("delaytask.tasks.added").tags(queue(LATER)).counter().getId()
                .getTag("task.name"))
                .as("a type no listener names").isEqualTo(Integer.toString(LATER));
        });
    }

    @Test
    void aTaskAddedToBeDueAtOnceHasItsRunTimedButNoLatenessAsItHasNoExecuteTime() {
        this.runner.run((context) -> {
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(RECORDED).build());

            await().atMost(Duration.ofSeconds(30)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            assertThat(timerCount(context, "delaytask.listener", RECORDED, "outcome", "success")).isEqualTo(1);
            assertThat(timerCount(context, "delaytask.lateness", RECORDED)).isZero();
        });
    }

    @Test
    void aHandlerThatFailsBothOfItsTwoAttemptsIsCountedRetriedOnceThenDeadOnce() {
        this.runner.run((context) -> {
            long id = context.getBean(DelayTaskService.class)
                .addTask(DelayTask.builder(FAILING).delay(Duration.ZERO).build());

            await().atMost(Duration.ofSeconds(30)).until(() -> status(context, id) == TaskStatus.DEAD);
            assertThat(counter(context, "delaytask.tasks.completed", FAILING, "outcome", "retried")).isEqualTo(1);
            assertThat(counter(context, "delaytask.tasks.completed", FAILING, "outcome", "dead")).isEqualTo(1);
            assertThat(counter(context, "delaytask.tasks.completed", FAILING, "outcome", "executed")).isZero();
            assertThat(timerCount(context, "delaytask.listener", FAILING, "outcome", "failure")).isEqualTo(2);
            assertThat(timerCount(context, "delaytask.listener", FAILING, "outcome", "success")).isZero();
            assertThat(timerCount(context, "delaytask.lateness", FAILING)).isEqualTo(2);
        });
    }

    @Test
    void theDeadGaugeCountsTheDeadTasksOfTheDatabase() {
        this.runner.run((context) -> {
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(FAILING).build());
            await().atMost(Duration.ofSeconds(30)).until(() -> status(context, id) == TaskStatus.DEAD);

            context.getBean(QueueStatsSampler.class).sampleNow();

            assertThat(gauge(context, "delaytask.tasks.dead", FAILING)).isEqualTo(1);
            assertThat(gauge(context, "delaytask.tasks.dead", RECORDED)).as("a queue this instance listens to")
                .isZero();
        });
    }

    @Test
    void rowsThePurgeDeletedAreCounted() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long first = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofHours(1)).build());
            long second = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofHours(1)).build());
            service.cancelTask(first);
            service.cancelTask(second);
            new JdbcTemplate(context.getBean(DataSource.class))
                .update("UPDATE taskinfo_logs SET finished_at = finished_at - ? WHERE status = 2",
                        Duration.ofDays(31).toMillis());

            assertThat(context.getBean(DelayTaskJobs.class).purgeHistoryNow()).isEqualTo(2);

            assertThat(context.getBean(MeterRegistry.class).get("delaytask.history.purged").functionCounter().count())
                .isEqualTo(2);
        });
    }

    @Test
    void rowsTheFeedReadAreCounted() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.jobs.auto-startup=false")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMinutes(1)).build());
                service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofHours(1)).build());
                DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);
                // the jobs not started: the instance's catching up and a pass without a marker each read the task
                // due within the window; the pass after reads on from the marker, and nothing entered the window
                jobs.feedNow();
                jobs.feedNow();
                assertThat(context.getBean(MeterRegistry.class).get("delaytask.feed.rows").functionCounter().count())
                    .isEqualTo(2);
            });
    }

    @Test
    void theQueuesClaimedFromTheDatabaseAreGaugedAndNoneAreWhileRedisAnswers() {
        this.runner.run((context) -> assertThat(context.getBean(MeterRegistry.class)
            .get("delaytask.dispatch.database.queues")
            .gauge()
            .value()).isZero());
    }

    @Test
    void aClaimedTaskWhoseLeaseRanOutIsCountedRedeliveredOnceWhenItIsDueAgain() {
        this.runner.withPropertyValues("delay-task.lease=1s").run((context) -> {
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(NO_LISTENER).build());
            Claims claims = context.getBean(Claims.class);
            QueueId queue = new QueueId(NO_LISTENER, 0);
            // a consumer that takes the task and never reports back, as one that died would
            assertThat(claims.claim(queue, 1).tasks()).extracting(StoredTask::taskId).containsExactly(id);
            assertThat(counter(context, "delaytask.tasks.redelivered", NO_LISTENER)).isZero();

            await().atMost(Duration.ofSeconds(30)).until(() -> {
                claims.claim(queue, 0);
                return counter(context, "delaytask.tasks.redelivered", NO_LISTENER) > 0;
            });
            assertThat(counter(context, "delaytask.tasks.redelivered", NO_LISTENER)).isEqualTo(1);
            assertThat(claims.claim(queue, 1).tasks()).as("due again").extracting(StoredTask::taskId)
                .containsExactly(id);
        });
    }

    @Test
    void queueGaugesShowTasksNotDueYetTasksDueAndNotClaimedAndTasksInFlight() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            try {
                service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofMinutes(1)).build());
                service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofMinutes(2)).build());
                service.addTask(DelayTask.builder(NO_LISTENER).executeAt(Instant.now().minusSeconds(20)).build());
                service.addTask(DelayTask.builder(NO_LISTENER).build());
                service.addTask(DelayTask.builder(NO_LISTENER).build());
                service.addTask(DelayTask.builder(BLOCKING).build());
                assertThat(listeners.blockingStarted.await(30, TimeUnit.SECONDS)).isTrue();

                context.getBean(QueueStatsSampler.class).sampleNow();

                assertThat(queueSize(context, NO_LISTENER, "future")).isEqualTo(2);
                assertThat(queueSize(context, NO_LISTENER, "ready")).isEqualTo(3);
                assertThat(queueSize(context, NO_LISTENER, "inflight")).isZero();
                assertThat(gauge(context, "delaytask.queue.latency", NO_LISTENER)).isBetween(19.0, 60.0);
                assertThat(queueSize(context, BLOCKING, "future")).isZero();
                assertThat(queueSize(context, BLOCKING, "ready")).isZero();
                assertThat(queueSize(context, BLOCKING, "inflight")).isEqualTo(1);
                assertThat(gauge(context, "delaytask.queue.latency", BLOCKING)).isZero();
            }
            finally {
                listeners.release.countDown();
            }
        });
    }

    @Test
    void theHandlerPoolIsMeteredAsAnExecutorNamedDelayTaskHandlersUntilTheListenersStop() {
        this.runner.withPropertyValues("delay-task.listener.concurrency=4").run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("executor.pool.max").tag("name", "delayTaskHandlers").gauge().value())
                .isEqualTo(4);
            assertThat(registry.find("executor.completed").tag("name", "delayTaskHandlers").functionCounter())
                .isNotNull();

            context.getBean(DelayTaskListenerEndpointRegistry.class).stop();

            assertThat(registry.getMeters()).noneMatch((meter) -> "delayTaskHandlers".equals(meter.getId()
                .getTag("name")));
        });
    }

    @Test
    void pastMaxQueuesFurtherQueuesGetNoMetersAndAWarningIsLoggedOnce(CapturedOutput output) {
        this.runner.withPropertyValues("delay-task.metrics.max-queues=1", "delay-task.listener.enabled=false")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                service.addTask(DelayTask.builder(NO_LISTENER).build());
                service.addTask(DelayTask.builder(LATER).build());
                service.addTask(DelayTask.builder(LATER).build());
                context.getBean(QueueStatsSampler.class).sampleNow();

                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.find("delaytask.queue.size").tags(queue(NO_LISTENER)).gauges()).hasSize(3);
                assertThat(registry.getMeters()).filteredOn((meter) -> isOfQueue(meter, LATER)).isEmpty();
                assertThat(counter(context, "delaytask.tasks.added", NO_LISTENER)).isEqualTo(1);
                assertThat(output.getAll().split("delay-task metrics cover at most 1 queue", -1)).hasSize(2);
            });
    }

    @Test
    void withoutAMeterRegistryThereAreNoMetricsBeansAndTasksStillRun() {
        this.backend.applicationRunner()
            .withConfiguration(AutoConfigurations.of(DelayTaskMetricsAutoConfiguration.class))
            .withUserConfiguration(Listeners.class)
            .run((context) -> {
                assertThat(context).hasNotFailed()
                    .doesNotHaveBean(DelayTaskMeters.class)
                    .doesNotHaveBean(TaskEvents.class)
                    .doesNotHaveBean(QueueStatsSampler.class);
                long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(RECORDED).build());
                await().atMost(Duration.ofSeconds(30)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            });
    }

    /**
     * Every auto-configuration on the class path, in Boot's own order, with Boot's meter registry: a name of Boot's
     * metrics auto-configuration that this line does not have would leave the starter without meters.
     */
    @Test
    void inBootsOwnOrderTheMetersGoToTheMeterRegistryOfBoot() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PlainApplication.class)
            .web(WebApplicationType.NONE)
            .properties(this.backend.properties().toArray(new String[0]))
            .run()) {
            assertThat(context.getBeansOfType(TaskEvents.class)).hasSize(1);
            context.getBean(DelayTaskService.class).addTask(DelayTask.builder(NO_LISTENER).build());
            assertThat(context.getBean(MeterRegistry.class)
                .get("delaytask.tasks.added")
                .tags(queue(NO_LISTENER))
                .counter()
                .count()).isEqualTo(1);
        }
    }

    private static Tags queue(int taskType) {
        return Tags.of("task.type", Integer.toString(taskType), "task.priority", "0");
    }

    private static boolean isOfQueue(Meter meter, int taskType) {
        return Integer.toString(taskType).equals(meter.getId().getTag("task.type"));
    }

    private static double counter(AssertableApplicationContext context, String name, int taskType, String... tags) {
        return context.getBean(MeterRegistry.class).get(name).tags(queue(taskType)).tags(tags).counter().count();
    }

    private static long timerCount(AssertableApplicationContext context, String name, int taskType,
            String... tags) {
        return context.getBean(MeterRegistry.class).get(name).tags(queue(taskType)).tags(tags).timer().count();
    }

    private static double gauge(AssertableApplicationContext context, String name, int taskType) {
        return context.getBean(MeterRegistry.class).get(name).tags(queue(taskType)).gauge().value();
    }

    private static double queueSize(AssertableApplicationContext context, int taskType, String state) {
        return context.getBean(MeterRegistry.class)
            .get("delaytask.queue.size")
            .tags(queue(taskType))
            .tag("state", state)
            .gauge()
            .value();
    }

    private static TaskStatus status(AssertableApplicationContext context, long id) {
        return context.getBean(DelayTaskService.class).findTask(id).orElseThrow().status();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class PlainApplication {

    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final CountDownLatch blockingStarted = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @Bean
        Handlers handlers() {
            return new Handlers(this);
        }

    }

    static class Handlers {

        private final Listeners listeners;

        Handlers(Listeners listeners) {
            this.listeners = listeners;
        }

        @DelayTaskListener(taskType = RECORDED, name = "recorded")
        void recorded() {
        }

        @DelayTaskListener(taskType = FAILING, maxAttempts = 2)
        void failing() {
            throw new IllegalStateException("no stock");
        }

        @DelayTaskListener(taskType = BLOCKING)
        void blocking() throws InterruptedException {
            this.listeners.blockingStarted.countDown();
            this.listeners.release.await(30, TimeUnit.SECONDS);
        }

    }

}
