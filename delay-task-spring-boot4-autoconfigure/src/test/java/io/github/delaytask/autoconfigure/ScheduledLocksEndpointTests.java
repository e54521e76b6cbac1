package io.github.delaytask.autoconfigure;

import java.time.Duration;

import io.github.delaytask.DistributedLock;
import io.github.delaytask.DistributedLocks.LockHandle;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.testsupport.BootLine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The {@code scheduledlocks} endpoint over HTTP, exposed the way an application exposes any Actuator endpoint.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScheduledLocksEndpointTests {

    private LockTestRedis redis;

    private WebApplicationContextRunner runner;

    @BeforeAll
    void startRedis() {
        this.redis = LockTestRedis.embedded();
        this.runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.WEB_ENDPOINTS))
            .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DelayTaskLockAutoConfiguration.class,
                    DelayTaskLockEndpointAutoConfiguration.class))
            .withPropertyValues(this.redis.properties())
            .withPropertyValues("management.endpoints.web.exposure.include=scheduledlocks")
            .withBean(Jobs.class);
    }

    @AfterAll
    void stopRedis() {
        this.redis.close();
    }

    @BeforeEach
    void clean() {
        this.redis.deleteKeys();
    }

    @Test
    void listsEachLockWithItsMethodAndItsLatestRun() {
        this.runner.run((context) -> {
            context.getBean(Jobs.class).report();
            mvc(context).perform(get("/actuator/scheduledlocks"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.locks[0].name").value("failing"))
                .andExpect(jsonPath("$.locks[0].lastRun").doesNotExist())
                .andExpect(jsonPath("$.locks[1].name").value("order-#{#orderId}"))
                .andExpect(jsonPath("$.locks[1].runnableByHand").value(false))
                .andExpect(jsonPath("$.locks[1].notRunnableReason")
                    .value("its lock name depends on the method arguments"))
                .andExpect(jsonPath("$.locks[2].name").value("report"))
                .andExpect(jsonPath("$.locks[2].methods[0]").value(containsString("Jobs.report")))
                .andExpect(jsonPath("$.locks[2].lockAtMostFor").value("PT30S"))
                .andExpect(jsonPath("$.locks[2].runnableByHand").value(true))
                .andExpect(jsonPath("$.locks[2].lastRun.outcome").value("SUCCEEDED"))
                .andExpect(jsonPath("$.locks[2].lastRun.pid").value(ProcessHandle.current().pid()))
                .andExpect(jsonPath("$.locks[2].lastRun.host").isNotEmpty())
                .andExpect(jsonPath("$.locks[2].lastRun.startedAt").isNotEmpty())
                .andExpect(jsonPath("$.locks[2].lastRun.duration").value(startsWith("PT")))
                .andExpect(jsonPath("$.locks[3].name").value("resend"))
                .andExpect(jsonPath("$.locks[3].notRunnableReason")
                    .value("it takes parameters; only methods without parameters can be run by hand"));
        });
    }

    @Test
    void showsOneLockByItsNameAndAnswers404ForAnUnknownName() {
        this.runner.run((context) -> {
            MockMvc mvc = mvc(context);
            mvc.perform(get("/actuator/scheduledlocks/report"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.name").value("report"));
            mvc.perform(get("/actuator/scheduledlocks/unknown")).andExpect(status().isNotFound());
        });
    }

    @Test
    void runsAJobByHandAndAnswersWithItsDuration() {
        this.runner.run((context) -> {
            mvc(context).perform(run("/actuator/scheduledlocks/report"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("RAN"))
                .andExpect(jsonPath("$.duration").value(startsWith("PT")));
            assertThat(context.getBean(Jobs.class).reports()).isEqualTo(1);
        });
    }

    @Test
    void jobThatFailsWhenRunByHandAnswersWithItsError() {
        this.runner.run((context) -> mvc(context).perform(run("/actuator/scheduledlocks/failing"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.status").value("FAILED"))
            .andExpect(jsonPath("$.error").value("java.lang.IllegalStateException: no data yet")));
    }

    @Test
    void refusesToRunAJobWhileAnotherHolderHasItsLock() {
        this.runner.run((context) -> {
            LockHandle other = context.getBean(DistributedLocks.class)
                .tryLock("report", Duration.ofSeconds(30))
                .orElseThrow();
            mvc(context).perform(run("/actuator/scheduledlocks/report"))
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.status").value("LOCKED"))
                .andExpect(jsonPath("$.lockRemaining").value(startsWith("PT")));
            assertThat(context.getBean(Jobs.class).reports()).isZero();
            other.unlock();
            mvc(context).perform(run("/actuator/scheduledlocks/report")).andExpect(status().isOk());
        });
    }

    @Test
    void jobThatTakesParametersIsNotRunByHand() {
        this.runner.run((context) -> mvc(context).perform(run("/actuator/scheduledlocks/resend"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.status").value("NOT_RUNNABLE"))
            .andExpect(jsonPath("$.reason").value(containsString("only methods without parameters"))));
    }

    @Test
    void jobWhoseLockNameDependsOnItsArgumentsIsNotRunByHand() {
        this.runner.run((context) -> mvc(context).perform(run("/actuator/scheduledlocks/{name}", "order-#{#orderId}"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.reason").value("its lock name depends on the method arguments")));
    }

    @Test
    void runByHandOfAnUnknownNameAnswers404() {
        this.runner.run((context) -> mvc(context).perform(run("/actuator/scheduledlocks/unknown"))
            .andExpect(status().isNotFound()));
    }

    @Test
    void aRunByHandNeedsAJsonBodySoThatACrossSiteFormCannotTriggerIt() {
        this.runner.run((context) -> {
            MockMvc mvc = mvc(context);
            mvc.perform(post("/actuator/scheduledlocks/report").contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .content("action=run")).andExpect(status().isUnsupportedMediaType());
            mvc.perform(post("/actuator/scheduledlocks/report").contentType(MediaType.TEXT_PLAIN)
                .content("{\"action\": \"run\"}")).andExpect(status().isUnsupportedMediaType());
            mvc.perform(post("/actuator/scheduledlocks/report")).andExpect(status().is4xxClientError());
            mvc.perform(post("/actuator/scheduledlocks/report").contentType(MediaType.APPLICATION_JSON)
                .content("{\"action\": \"delete\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.status").value("INVALID_REQUEST"));
            assertThat(context.getBean(Jobs.class).reports()).isZero();
        });
    }

    /** A run by hand as the README shows it: a POST with a JSON body. */
    static MockHttpServletRequestBuilder run(String path, Object... variables) {
        return post(path, variables).contentType(MediaType.APPLICATION_JSON).content("{\"action\": \"run\"}");
    }

    private static MockMvc mvc(AssertableWebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).build();
    }

    static class Jobs {

        private int reports;

        @DistributedLock(name = "report", lockAtMostFor = "30s")
        public void report() {
            this.reports++;
        }

        @DistributedLock(name = "failing")
        public void failing() {
            throw new IllegalStateException("no data yet");
        }

        @DistributedLock(name = "order-#{#orderId}")
        public void expire(Long orderId) {
        }

        @DistributedLock(name = "resend")
        public void resend(Long orderId) {
        }

        public int reports() {
            return this.reports;
        }

    }

}
