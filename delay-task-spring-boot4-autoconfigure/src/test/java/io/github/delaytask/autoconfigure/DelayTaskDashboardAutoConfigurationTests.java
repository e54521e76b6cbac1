package io.github.delaytask.autoconfigure;

import io.github.delaytask.dashboard.DelayTaskDashboard;
import io.github.delaytask.testsupport.BootLine;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.servlet.function.RouterFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Tests for {@link DelayTaskDashboardAutoConfiguration}: off unless asked for, only in a Spring MVC application,
 * its path validated at binding, and its page told where the {@code delaytasks} endpoint is and what it allows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(OutputCaptureExtension.class)
class DelayTaskDashboardAutoConfigurationTests {

    private TestBackend backend;

    private WebApplicationContextRunner runner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.WEB_ENDPOINTS))
            .withConfiguration(AutoConfigurations.of(BootLine.DATA))
            .withConfiguration(AutoConfigurations.of(DelayTaskAutoConfiguration.class,
                    DelayTaskEndpointAutoConfiguration.class, DelayTaskDashboardAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]))
            .withPropertyValues("management.endpoints.web.exposure.include=delaytasks",
                    "delay-task.listener.enabled=false");
    }

    @AfterAll
    void stopBackend() {
        this.backend.close();
    }

    @Test
    void isOffByDefault() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(DelayTaskDashboard.class);
            mvc(context).perform(get("/delay-task")).andExpect(status().isNotFound());
        });
    }

    @Test
    void servesItsPageWithAndWithoutATrailingSlashToldWhereTheEndpointIsAndThatItTakesChanges() {
        this.runner.withPropertyValues("delay-task.dashboard.enabled=true").run((context) -> {
            MockMvc mvc = mvc(context);
            for (String path : new String[] { "/delay-task", "/delay-task/" }) {
                mvc.perform(get(path))
                    .andExpect(status().isOk())
                    .andExpect(content().contentTypeCompatibleWith("text/html"))
                    .andExpect(content().string(containsString(
                            "<meta name=\"delay-task-endpoint\" content=\"/actuator/delaytasks\">")))
                    .andExpect(content().string(containsString(
                            "<meta name=\"delay-task-writable\" content=\"true\">")))
                    .andExpect(content().string(containsString("<meta name=\"delay-task-problem\" content=\"\">")))
                    .andExpect(content().string(containsString("src=\"/delay-task/dashboard.js\"")));
            }
        });
    }

    @Test
    void servesItsScriptAndStyleSheetFromTheJarAndNothingElseBelowItsPath() {
        this.runner.withPropertyValues("delay-task.dashboard.enabled=true").run((context) -> {
            MockMvc mvc = mvc(context);
            mvc.perform(get("/delay-task/dashboard.js"))
                .andExpect(status().isOk())
                .andExpect(content().contentTypeCompatibleWith("text/javascript"))
                .andExpect(content().string(containsString("X-XSRF-TOKEN")));
            mvc.perform(get("/delay-task/dashboard.css"))
                .andExpect(status().isOk())
                .andExpect(content().contentTypeCompatibleWith("text/css"));
            mvc.perform(get("/delay-task/index.html")).andExpect(status().isNotFound());
            mvc.perform(get("/delay-task/../application.properties")).andExpect(status().isNotFound());
        });
    }

    @Test
    void followsItsPathAndActuatorsBasePathAndPathMapping() {
        this.runner
            .withPropertyValues("delay-task.dashboard.enabled=true", "delay-task.dashboard.path=/ops/tasks",
                    "management.endpoints.web.base-path=/manage",
                    "management.endpoints.web.path-mapping.delaytasks=queues")
            .run((context) -> {
                MockMvc mvc = mvc(context);
                mvc.perform(get("/delay-task")).andExpect(status().isNotFound());
                mvc.perform(get("/ops/tasks"))
                    .andExpect(status().isOk())
                    .andExpect(content().string(containsString("content=\"/manage/queues\"")))
                    .andExpect(content().string(containsString("href=\"/ops/tasks/dashboard.css\"")));
                mvc.perform(get("/manage/queues")).andExpect(status().isOk());
            });
    }

    @Test
    void tellsThePageTheEndpointIsReadOnlySoThatItOffersNoChange() {
        // READ_ONLY: a context runner's environment lacks Boot's lenient enum conversion, which reads read-only
        this.runner
            .withPropertyValues("delay-task.dashboard.enabled=true", "management.endpoint.delaytasks.access=READ_ONLY")
            .run((context) -> mvc(context).perform(get("/delay-task"))
                .andExpect(status().isOk())
                .andExpect(content().string(containsString("content=\"/actuator/delaytasks\"")))
                .andExpect(content().string(containsString("<meta name=\"delay-task-writable\" content=\"false\">"))));
    }

    @Test
    void saysOnThePageAndInTheLogWhenTheEndpointIsNotExposedOverHttp(CapturedOutput output) {
        this.runner
            .withPropertyValues("delay-task.dashboard.enabled=true", "management.endpoints.web.exposure.include=health")
            .run((context) -> {
                assertThat(context).hasSingleBean(DelayTaskDashboard.class);
                mvc(context).perform(get("/delay-task"))
                    .andExpect(status().isOk())
                    .andExpect(content().string(containsString("<meta name=\"delay-task-endpoint\" content=\"\">")))
                    .andExpect(content().string(containsString("management.endpoints.web.exposure.include")));
                assertThat(output).contains("The delay-task dashboard at /delay-task cannot show or change tasks")
                    .contains("Add delaytasks to management.endpoints.web.exposure.include");
            });
    }

    @Test
    void refusesAPathThatDoesNotStartWithASlashOrEndsWithOneNamingTheProperty() {
        for (String path : new String[] { "delay-task", "/", "/delay-task/", "/tasks/**" }) {
            this.runner.withPropertyValues("delay-task.dashboard.enabled=true", "delay-task.dashboard.path=" + path)
                .run((context) -> assertThat(context).getFailure()
                    .as("path %s", path)
                    .rootCause()
                    .hasMessageContaining("delay-task.dashboard.path ('" + path + "')"));
        }
    }

    @Test
    void backsOffWithoutSpringMvc() {
        new WebApplicationContextRunner().withClassLoader(new FilteredClassLoader(RouterFunction.class))
            .withConfiguration(AutoConfigurations.of(BootLine.DATA))
            .withConfiguration(AutoConfigurations.of(DelayTaskAutoConfiguration.class,
                    DelayTaskDashboardAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]))
            .withPropertyValues("delay-task.dashboard.enabled=true", "delay-task.listener.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayTaskDashboard.class));
    }

    @Test
    void backsOffInAnApplicationThatIsNotAWebApplication() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BootLine.DATA))
            .withConfiguration(AutoConfigurations.of(DelayTaskAutoConfiguration.class,
                    DelayTaskEndpointAutoConfiguration.class, DelayTaskDashboardAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]))
            .withPropertyValues("delay-task.dashboard.enabled=true", "delay-task.listener.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayTaskDashboard.class));
    }

    @Test
    void backsOffWhenTheStarterIsOff() {
        this.runner.withPropertyValues("delay-task.dashboard.enabled=true", "delay-task.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayTaskDashboard.class));
    }

    private static MockMvc mvc(AssertableWebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).build();
    }

}
