package io.github.delaytask.autoconfigure;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.listener.DelayTaskListenerEndpointRegistry;
import io.github.delaytask.testsupport.BootLine;
import io.github.delaytask.testsupport.FreePort;
import io.github.delaytask.testsupport.H2BrokenConnectionEviction;
import io.github.delaytask.testsupport.ReportedHealth;
import io.github.delaytask.testsupport.TcpProxy;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.VolatileRedis;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.LIST;
import static org.assertj.core.api.InstanceOfAssertFactories.MAP;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The {@code delayTask} health contributor on real servers: an embedded Redis and H2, a Redis of the test's own that
 * it stops and starts again, an H2 server behind a proxy it cuts. Redis keeps Boot's command timeout of a minute and
 * the pool a connection timeout of a second, and every check is timed: none waits for them.
 */
class DelayTaskHealthIndicatorTests {

    private static final int TASK_TYPE = 7;

    private static final int PRIORITY = 2;

    /** Far longer than a check may take: a probe timeout, with room for a slow machine. */
    private static final long LONGEST_CHECK_MILLIS = 3000;

    private TestBackend backend;

    @BeforeEach
    void createBackend() {
        this.backend = TestBackend.embedded();
    }

    @AfterEach
    void closeBackend() {
        this.backend.close();
    }

    private ApplicationContextRunner runner() {
        return this.backend.applicationRunner()
            .withConfiguration(AutoConfigurations.of(DelayTaskHealthContributorAutoConfiguration.class))
            .withBean(HealthListener.class)
            .withPropertyValues("delay-task.health.unreachable-after=1s");
    }

    @Test
    void upWithTheListenersTheirQueuesAndTheLastReloadWhileTheListenersRunOnEmbeddedRedisAndH2() {
        runner().run((context) -> {
            Object indicator = context.getBean("delayTaskHealthIndicator");
            await().atMost(Duration.ofSeconds(10))
                .until(() -> BootLine.health(indicator).details().containsKey("lastReload"));
            ReportedHealth health = BootLine.health(indicator);
            assertThat(health.status()).isEqualTo("UP");
            assertThat(health.details()).containsEntry("redis", Map.of("answers", true))
                .containsEntry("database", Map.of("answers", true))
                .doesNotContainKey("lastError");
            assertThat(health.details()).extractingByKey("listeners", as(MAP))
                .containsEntry("running", true)
                .extractingByKey("methods", as(LIST))
                .singleElement(as(MAP))
                .containsEntry("taskType", TASK_TYPE)
                .containsEntry("priority", PRIORITY)
                .hasEntrySatisfying("method", (method) -> assertThat((String) method)
                    .endsWith("' method " + HealthListener.class.getName() + ".handle"));
            assertThat(health.details()).extractingByKey("lastReload", as(MAP))
                .containsEntry("tasks", 0)
                .containsKeys("startedAt", "duration")
                .doesNotContainKey("error");
            assertThat(health.details()).extractingByKey("feed", as(MAP))
                .containsEntry("rowsRead", 0L)
                .containsEntry("failing", false);
        });
    }

    @Test
    void outOfServiceOnceTheListenerRegistryStopsAndAfterTheApplicationCloses() {
        Object[] indicator = new Object[1];
        runner().run((context) -> {
            indicator[0] = context.getBean("delayTaskHealthIndicator");
            assertThat(BootLine.health(indicator[0]).status()).isEqualTo("UP");
            context.getBean(DelayTaskListenerEndpointRegistry.class).stop();
            ReportedHealth stopped = BootLine.health(indicator[0]);
            assertThat(stopped.status()).isEqualTo("OUT_OF_SERVICE");
            assertThat(stopped.details()).extractingByKey("listeners", as(MAP))
                .containsEntry("running", false);
            context.getBean(DelayTaskListenerEndpointRegistry.class).start();
            assertThat(BootLine.health(indicator[0]).status()).isEqualTo("UP");
        });
        assertThat(BootLine.health(indicator[0]).status()).isEqualTo("OUT_OF_SERVICE");
    }

    @Test
    void upWhileItsRedisIsStoppedAndTheDatabaseDispatchesInItsSteadWithTheOutageInTheDetails() {
        try (VolatileRedis redis = VolatileRedis.start()) {
            runner().withPropertyValues("spring.data.redis.port=" + redis.port(),
                    "spring.data.redis.lettuce.pool.enabled=false").run((context) -> {
                Object indicator = context.getBean("delayTaskHealthIndicator");
                TimedChecks checks = new TimedChecks(indicator);
                checks.expect("UP");
                redis.stop();
                await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(BootLine.health(indicator).details())
                        .extractingByKey("redis", as(MAP))
                        .containsEntry("answers", false));
                // for twice as long as unreachable-after: tasks are still added, and run from the database
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> checks.expect("UP"));
                assertThat(BootLine.health(indicator).details()).extractingByKey("lastError", as(MAP))
                    .containsEntry("server", "redis");
                assertThat(checks.longestMillis()).as("longest check, in ms").isLessThan(LONGEST_CHECK_MILLIS);
            });
        }
    }

    @Test
    void downOnceItsRedisHasBeenStoppedForLongerThanUnreachableAfterAndUpAgainWhenItIsBackOnTheSamePort() {
        try (VolatileRedis redis = VolatileRedis.start()) {
            // one shared connection, no pool: while Redis is away Lettuce holds the PING until it reconnects or
            // the command timeout, a minute, passes; no database dispatch, so that an outage of Redis stops tasks
            runner().withPropertyValues("spring.data.redis.port=" + redis.port(),
                    "spring.data.redis.lettuce.pool.enabled=false", "delay-task.database-dispatch.enabled=false")
                .run((context) -> {
                Object indicator = context.getBean("delayTaskHealthIndicator");
                TimedChecks checks = new TimedChecks(indicator);
                checks.expect("UP");
                redis.stop();
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> checks.expect("DOWN"));
                ReportedHealth down = BootLine.health(indicator);
                assertThat(down.details()).extractingByKey("redis", as(MAP))
                    .containsEntry("answers", false)
                    .containsKey("failingSince")
                    // a PING sent while Lettuce still holds the lost connection waits for an answer; one sent once it
                    // noticed the loss tries a new connection, which is refused
                    .hasEntrySatisfying("error", (error) -> assertThat((String) error)
                        .satisfiesAnyOf((text) -> assertThat(text).startsWith("no answer for "),
                                (text) -> assertThat(text).contains("Unable to connect to Redis")));
                assertThat(down.details()).extractingByKey("lastError", as(MAP)).containsEntry("server", "redis");
                redis.startAgain();
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> checks.expect("UP"));
                assertThat(checks.longestMillis()).as("longest check, in ms").isLessThan(LONGEST_CHECK_MILLIS);
            });
        }
    }

    @Test
    void downOnceTheDatabaseHasBeenCutOffForLongerThanUnreachableAfterAndUpAgainWhenItIsBack() throws SQLException {
        String database = "delaytask_health_" + UUID.randomUUID().toString().replace("-", "");
        Server h2 = Server.createTcpServer("-tcpPort", String.valueOf(FreePort.find()), "-ifNotExists", "-tcpDaemon")
            .start();
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", h2.getPort())) {
            String url = "jdbc:h2:tcp://127.0.0.1:" + proxy.port() + "/mem:" + database + ";DB_CLOSE_DELAY=-1";
            runner().withPropertyValues("spring.datasource.url=" + url,
                    "spring.datasource.hikari.connection-timeout=1000",
                    "spring.datasource.hikari.exception-override-class-name="
                            + H2BrokenConnectionEviction.class.getName())
                .run((context) -> {
                    Object indicator = context.getBean("delayTaskHealthIndicator");
                    TimedChecks checks = new TimedChecks(indicator);
                    checks.expect("UP");
                    proxy.cut();
                    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> checks.expect("DOWN"));
                    ReportedHealth down = BootLine.health(indicator);
                    assertThat(down.details()).extractingByKey("database", as(MAP))
                        .containsEntry("answers", false)
                        .containsKeys("failingSince", "error");
                    proxy.restore();
                    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> checks.expect("UP"));
                    assertThat(checks.longestMillis()).as("longest check, in ms").isLessThan(LONGEST_CHECK_MILLIS);
                });
        }
        finally {
            h2.stop();
        }
    }

    @Test
    void theHealthEndpointShowsItAndTheReadinessGroupOfTheReadmeTurnsAwayTrafficWhileItIsOutOfService() {
        new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.WEB_ENDPOINTS))
            .withConfiguration(AutoConfigurations.of(BootLine.HEALTH_ENDPOINT))
            .withConfiguration(AutoConfigurations.of(BootLine.DATA))
            .withConfiguration(AutoConfigurations.of(DelayTaskAutoConfiguration.class,
                    DelayTaskHealthContributorAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]))
            .withPropertyValues("management.endpoint.health.show-details=always",
                    "management.endpoint.health.probes.enabled=true",
                    "management.endpoint.health.group.readiness.include=readinessState,delayTask")
            .withBean(HealthListener.class)
            .run((context) -> {
                AvailabilityChangeEvent.publish(context, LivenessState.CORRECT);
                AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
                MockMvc mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) context).build();
                mvc.perform(get("/actuator/health/delayTask"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.status").value("UP"))
                    .andExpect(jsonPath("$.details.redis.answers").value(true))
                    .andExpect(jsonPath("$.details.database.answers").value(true))
                    .andExpect(jsonPath("$.details.listeners.running").value(true))
                    .andExpect(jsonPath("$.details.listeners.methods[0].taskType").value(TASK_TYPE))
                    .andExpect(jsonPath("$.details.listeners.methods[0].method").value(containsString(".handle")));
                mvc.perform(get("/actuator/health/readiness"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.components.delayTask.status").value("UP"));
                context.getBean(DelayTaskListenerEndpointRegistry.class).stop();
                mvc.perform(get("/actuator/health/readiness"))
                    .andExpect(status().isServiceUnavailable())
                    .andExpect(jsonPath("$.components.delayTask.status").value("OUT_OF_SERVICE"));
                mvc.perform(get("/actuator/health/liveness"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.components.delayTask").doesNotExist());
            });
    }

    /** Checks of the health indicator, timed, so that a test can tell the longest. */
    static final class TimedChecks {

        private final Object indicator;

        private final AtomicLong longestNanos = new AtomicLong();

        TimedChecks(Object indicator) {
            this.indicator = indicator;
        }

        /** Check once, failing with what the check found unless the status is the one expected. */
        void expect(String status) {
            long start = System.nanoTime();
            ReportedHealth health = BootLine.health(this.indicator);
            this.longestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
            assertThat(health.status()).as("status of %s", health).isEqualTo(status);
        }

        long longestMillis() {
            return TimeUnit.NANOSECONDS.toMillis(this.longestNanos.get());
        }

    }

    static class HealthListener {

        @DelayTaskListener(taskType = TASK_TYPE, priority = PRIORITY)
        void handle(DelayTask task) {
        }

    }

}
