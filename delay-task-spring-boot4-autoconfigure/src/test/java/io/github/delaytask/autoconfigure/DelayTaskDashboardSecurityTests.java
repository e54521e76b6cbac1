package io.github.delaytask.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.BootLine;
import io.github.delaytask.testsupport.TestBackend;
import jakarta.servlet.http.Cookie;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.csrf.CookieCsrfTokenRepository;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;
import static org.springframework.security.test.web.servlet.setup.SecurityMockMvcConfigurers.springSecurity;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The README's recipe that puts the dashboard and the {@code delaytasks} endpoint behind the application's Spring
 * Security, as written there, and the variant that keeps CSRF protection with the cookie repository whose token the
 * page sends back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DelayTaskDashboardSecurityTests {

    static final int NO_LISTENER = 80;

    private TestBackend backend;

    private WebApplicationContextRunner runner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.WEB_ENDPOINTS))
            .withConfiguration(AutoConfigurations.of(BootLine.DATA))
            .withConfiguration(AutoConfigurations.of(BootLine.SECURITY))
            .withConfiguration(AutoConfigurations.of(DelayTaskAutoConfiguration.class,
                    DelayTaskEndpointAutoConfiguration.class, DelayTaskDashboardAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]))
            .withPropertyValues("management.endpoints.web.exposure.include=delaytasks",
                    "delay-task.dashboard.enabled=true", "delay-task.listener.enabled=false")
            .withUserConfiguration(Users.class);
    }

    @AfterAll
    void stopBackend() {
        this.backend.close();
    }

    @Test
    void anAnonymousCallerGetsNeitherThePageNorTheEndpointAndAReaderMaySeeButNotChange() {
        this.runner.withUserConfiguration(DashboardSecurity.class).run((context) -> {
            long id = pendingTask(context);
            MockMvc mvc = mvc(context);
            mvc.perform(get("/delay-task")).andExpect(status().isUnauthorized());
            mvc.perform(get("/delay-task/dashboard.js")).andExpect(status().isUnauthorized());
            mvc.perform(get("/actuator/delaytasks")).andExpect(status().isUnauthorized());
            mvc.perform(get("/delay-task").with(httpBasic("viewer", "secret"))).andExpect(status().isOk());
            mvc.perform(get("/actuator/delaytasks").with(httpBasic("viewer", "secret"))).andExpect(status().isOk());
            mvc.perform(cancel(id).with(httpBasic("viewer", "secret"))).andExpect(status().isForbidden());
            assertThat(taskStatus(context, id)).isEqualTo(TaskStatus.SCHEDULED);
            mvc.perform(cancel(id).with(httpBasic("ops", "secret"))).andExpect(status().isOk());
            assertThat(taskStatus(context, id)).isEqualTo(TaskStatus.CANCELLED);
        });
    }

    @Test
    void withTheCookieCsrfRepositoryAChangeNeedsTheTokenThePageReadsFromTheCookie() {
        this.runner.withUserConfiguration(CookieCsrfDashboardSecurity.class).run((context) -> {
            long id = pendingTask(context);
            MockMvc mvc = mvc(context);
            Cookie token = mvc.perform(get("/delay-task").with(httpBasic("ops", "secret")))
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getCookie("XSRF-TOKEN");
            assertThat(token).isNotNull();
            assertThat(token.isHttpOnly()).as("readable by the page's script").isFalse();
            mvc.perform(cancel(id).with(httpBasic("ops", "secret")).cookie(token)).andExpect(status().isForbidden());
            assertThat(taskStatus(context, id)).isEqualTo(TaskStatus.SCHEDULED);
            mvc.perform(cancel(id).with(httpBasic("ops", "secret")).cookie(token)
                .header("X-XSRF-TOKEN", token.getValue())).andExpect(status().isOk());
            assertThat(taskStatus(context, id)).isEqualTo(TaskStatus.CANCELLED);
        });
    }

    @Test
    void whenAuthorizedOnlyTheRolesNamedSeeATasksParametersAndAReaderSeesTheRestOfIt() {
        String encoded = Base64.getEncoder().encodeToString("{\"order\":42}".getBytes(StandardCharsets.UTF_8));
        this.runner.withUserConfiguration(DashboardSecurity.class)
            .withPropertyValues("management.endpoint.delaytasks.show-parameters=when-authorized",
                    "management.endpoint.delaytasks.roles=OPS")
            .run((context) -> {
                long id = context.getBean(DelayTaskService.class)
                    .addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).parameters("{\"order\":42}")
                        .build());
                MockMvc mvc = mvc(context);
                String asReader = mvc.perform(get("/actuator/delaytasks/tasks/{id}", id)
                    .with(httpBasic("viewer", "secret")))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.taskId").value(id))
                    .andReturn()
                    .getResponse()
                    .getContentAsString();
                String asOps = mvc.perform(get("/actuator/delaytasks/tasks/{id}", id).with(httpBasic("ops", "secret")))
                    .andExpect(status().isOk())
                    .andReturn()
                    .getResponse()
                    .getContentAsString();
                assertThat(asReader).doesNotContain(encoded);
                assertThat(asOps).contains(encoded);
            });
    }

    private static long pendingTask(AssertableWebApplicationContext context) {
        return context.getBean(DelayTaskService.class)
            .addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
    }

    private static TaskStatus taskStatus(AssertableWebApplicationContext context, long id) {
        return context.getBean(DelayTaskService.class).findTask(id).orElseThrow().status();
    }

    private static MockHttpServletRequestBuilder cancel(long id) {
        return post("/actuator/delaytasks/tasks/{id}", id).contentType(MediaType.APPLICATION_JSON)
            .content("{\"action\": \"cancel\"}");
    }

    private static MockMvc mvc(AssertableWebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).apply(springSecurity()).build();
    }

    /** The README's recipe, word for word. */
    @Configuration(proxyBeanMethods = false)
    static class DashboardSecurity {

        @Bean
        SecurityFilterChain delayTaskSecurity(HttpSecurity http) throws Exception {
            return http.securityMatcher("/delay-task/**", "/actuator/delaytasks/**")
                .authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.GET, "/**")
                    .hasAnyRole("OPS", "OPS_READ")
                    .anyRequest()
                    .hasRole("OPS"))
                .httpBasic(Customizer.withDefaults())
                // a change needs a JSON body, which a cross-site form cannot send
                .csrf((csrf) -> csrf.ignoringRequestMatchers("/actuator/delaytasks/**"))
                .build();
        }

    }

    /** The README's variant that keeps CSRF protection on, word for word. */
    @Configuration(proxyBeanMethods = false)
    static class CookieCsrfDashboardSecurity {

        @Bean
        SecurityFilterChain delayTaskSecurity(HttpSecurity http) throws Exception {
            CsrfTokenRequestAttributeHandler tokens = new CsrfTokenRequestAttributeHandler();
            // the token is loaded on every request, so the page has its cookie before its first change
            tokens.setCsrfRequestAttributeName(null);
            return http.securityMatcher("/delay-task/**", "/actuator/delaytasks/**")
                .authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.GET, "/**")
                    .hasAnyRole("OPS", "OPS_READ")
                    .anyRequest()
                    .hasRole("OPS"))
                .httpBasic(Customizer.withDefaults())
                .csrf((csrf) -> csrf.csrfTokenRepository(CookieCsrfTokenRepository.withHttpOnlyFalse())
                    .csrfTokenRequestHandler(tokens))
                .build();
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class Users {

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("ops").password("{noop}secret").roles("OPS").build(),
                    User.withUsername("viewer").password("{noop}secret").roles("OPS_READ").build());
        }

    }

}
