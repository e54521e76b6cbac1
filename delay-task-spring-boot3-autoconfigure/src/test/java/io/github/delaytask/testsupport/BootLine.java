package io.github.delaytask.testsupport;

import java.time.Duration;

import com.baomidou.mybatisplus.autoconfigure.MybatisPlusAutoConfiguration;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.delaytask.PayloadCodec;
import io.github.delaytask.json.Jackson2PayloadCodec;

import org.springframework.boot.actuate.autoconfigure.availability.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.availability.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.security.servlet.EndpointRequest;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.servlet.ServletManagementContextAutoConfiguration;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.data.redis.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.web.util.matcher.RequestMatcher;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

/**
 * What the shared tests need of Spring Boot 3.5, whose classes live where that line keeps them: each Boot line's
 * test sources have a class of this name.
 */
public final class BootLine {

    public static final Class<?> PROPERTY_PLACEHOLDER = PropertyPlaceholderAutoConfiguration.class;

    public static final Class<?> REDIS = RedisAutoConfiguration.class;

    public static final Class<?> DATA_SOURCE = DataSourceAutoConfiguration.class;

    public static final Class<?> TRANSACTION_MANAGER = DataSourceTransactionManagerAutoConfiguration.class;

    public static final Class<?> TRANSACTION = TransactionAutoConfiguration.class;

    public static final Class<?> JACKSON = JacksonAutoConfiguration.class;

    public static final Class<?> MYBATIS_PLUS = MybatisPlusAutoConfiguration.class;

    public static final Class<?> AOP = AopAutoConfiguration.class;

    /** What an application of the starter has: Redis, a data source with transactions, Jackson, MyBatis-Plus. */
    public static final Class<?>[] DATA = { REDIS, DATA_SOURCE, TRANSACTION_MANAGER, TRANSACTION, JACKSON,
            MYBATIS_PLUS };

    /** Actuator's endpoints over Spring MVC. */
    public static final Class<?>[] WEB_ENDPOINTS = { PROPERTY_PLACEHOLDER, JACKSON,
            HttpMessageConvertersAutoConfiguration.class, WebMvcAutoConfiguration.class,
            DispatcherServletAutoConfiguration.class, EndpointAutoConfiguration.class,
            JacksonEndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class,
            ManagementContextAutoConfiguration.class, ServletManagementContextAutoConfiguration.class };

    /** Actuator's health endpoint with the availability states and their probes (liveness, readiness). */
    public static final Class<?>[] HEALTH_ENDPOINT = { HealthContributorAutoConfiguration.class,
            HealthEndpointAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class,
            AvailabilityHealthContributorAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class };

    /** The type of health indicators on this line, without which the starter contributes no health. */
    public static final Class<?> HEALTH_INDICATOR = HealthIndicator.class;

    /** Spring Security on a servlet web application. */
    public static final Class<?>[] SECURITY = { SecurityAutoConfiguration.class };

    /** The bean name of the starter's Lettuce customizer on a Redis Cluster. */
    public static final String CLUSTER_CUSTOMIZER = "delayTaskClusterTopologyRefreshCustomizer";

    private BootLine() {
    }

    /** A request matcher of every Actuator endpoint, as the README's security recipe uses. */
    public static RequestMatcher anyEndpoint() {
        return EndpointRequest.toAnyEndpoint();
    }

    /** What a health indicator of this line, such as the bean {@code delayTaskHealthIndicator}, reports now. */
    public static ReportedHealth health(Object indicator) {
        Health health = ((HealthIndicator) indicator).health();
        return new ReportedHealth(health.getStatus().getCode(), health.getDetails());
    }

    /** The codec the starter makes of a mapper of this line's Jackson with its defaults. */
    public static PayloadCodec defaultPayloadCodec() {
        return new Jackson2PayloadCodec(new ObjectMapper());
    }

    /** A configuration with a client options customizer of the application's own: a periodic refresh of 7 s. */
    public static Class<?> clientOptionsCustomizer() {
        return UserClientOptionsCustomizer.class;
    }

    @Configuration(proxyBeanMethods = false)
    static class UserClientOptionsCustomizer {

        @Bean
        LettuceClientOptionsBuilderCustomizer userTopologyRefresh() {
            return (builder) -> ((ClusterClientOptions.Builder) builder)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                    .enablePeriodicRefresh(Duration.ofSeconds(7))
                    .build());
        }

    }

}
