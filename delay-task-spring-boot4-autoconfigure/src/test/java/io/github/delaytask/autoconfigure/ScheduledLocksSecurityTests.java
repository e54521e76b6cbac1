package io.github.delaytask.autoconfigure;

import io.github.delaytask.DistributedLock;
import io.github.delaytask.testsupport.BootLine;
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
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;
import static org.springframework.security.test.web.servlet.setup.SecurityMockMvcConfigurers.springSecurity;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The README's recipe that secures the Actuator endpoints with Spring Security, as written there: reads for one
 * role, writes for another, scripts with basic authentication, and no write from a cross-site form.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScheduledLocksSecurityTests {

    private LockTestRedis redis;

    private WebApplicationContextRunner runner;

    @BeforeAll
    void startRedis() {
        this.redis = LockTestRedis.embedded();
        this.runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.WEB_ENDPOINTS))
            .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DelayTaskLockAutoConfiguration.class,
                    DelayTaskLockEndpointAutoConfiguration.class))
            .withConfiguration(AutoConfigurations.of(BootLine.SECURITY))
            .withPropertyValues(this.redis.properties())
            .withPropertyValues("management.endpoints.web.exposure.include=scheduledlocks")
            .withUserConfiguration(ActuatorSecurity.class)
            .withBean(Jobs.class);
    }

    @AfterAll
    void stopRedis() {
        this.redis.close();
    }

    @Test
    void anAnonymousCallerIsRefusedAndAReaderMayReadButNotRun() {
        this.runner.run((context) -> {
            MockMvc mvc = mvc(context);
            mvc.perform(get("/actuator/scheduledlocks")).andExpect(status().isUnauthorized());
            mvc.perform(run().with(httpBasic("viewer", "secret"))).andExpect(status().isForbidden());
            mvc.perform(get("/actuator/scheduledlocks").with(httpBasic("viewer", "secret")))
                .andExpect(status().isOk());
            assertThat(context.getBean(Jobs.class).reports()).isZero();
        });
    }

    @Test
    void anOperatorRunsAJobWithAJsonBodyButNotWithAForm() {
        this.runner.run((context) -> {
            MockMvc mvc = mvc(context);
            mvc.perform(post("/actuator/scheduledlocks/report").with(httpBasic("ops", "secret"))
                .contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .content("action=run")).andExpect(status().isUnsupportedMediaType());
            assertThat(context.getBean(Jobs.class).reports()).isZero();
            mvc.perform(run().with(httpBasic("ops", "secret"))).andExpect(status().isOk());
            assertThat(context.getBean(Jobs.class).reports()).isOne();
        });
    }

    private static org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder run() {
        return ScheduledLocksEndpointTests.run("/actuator/scheduledlocks/report");
    }

    private static MockMvc mvc(AssertableWebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).apply(springSecurity()).build();
    }

    /** The README's recipe, word for word, with two users to try it on. */
    @Configuration(proxyBeanMethods = false)
    static class ActuatorSecurity {

        @Bean
        SecurityFilterChain actuatorSecurity(HttpSecurity http) throws Exception {
            return http.securityMatcher(BootLine.anyEndpoint())
                .authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.GET, "/**")
                    .hasAnyRole("OPS", "OPS_READ")
                    .anyRequest()
                    .hasRole("OPS"))
                .httpBasic(Customizer.withDefaults())
                // scripts send no CSRF token; a write needs a JSON body, which a cross-site form cannot send
                .csrf((csrf) -> csrf.ignoringRequestMatchers(BootLine.anyEndpoint()))
                .build();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("ops").password("{noop}secret").roles("OPS").build(),
                    User.withUsername("viewer").password("{noop}secret").roles("OPS_READ").build());
        }

    }

    static class Jobs {

        private int reports;

        @DistributedLock(name = "report", lockAtMostFor = "30s")
        public void report() {
            this.reports++;
        }

        public int reports() {
            return this.reports;
        }

    }

}
