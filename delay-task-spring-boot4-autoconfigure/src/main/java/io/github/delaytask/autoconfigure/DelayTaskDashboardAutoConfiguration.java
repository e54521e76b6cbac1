package io.github.delaytask.autoconfigure;

import io.github.delaytask.DelayTaskService;
import io.github.delaytask.dashboard.DelayTaskDashboard;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Auto-configuration of the dashboard, with {@code delay-task.dashboard.enabled=true} in a Spring MVC web
 * application with Actuator: a page at {@code delay-task.dashboard.path}, served by the application itself, whose
 * script acts only through the {@code delaytasks} endpoint. When that endpoint is not exposed over HTTP, or Actuator
 * has a port of its own, the page says so (and a warning is logged at start-up) rather than the page being missing.
 */
@AutoConfiguration(after = { DelayTaskAutoConfiguration.class, DelayTaskEndpointAutoConfiguration.class })
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnClass({ RouterFunction.class, Endpoint.class, PathMappedEndpoints.class })
@ConditionalOnBooleanProperty(name = "delay-task.dashboard.enabled")
@ConditionalOnBean(DelayTaskService.class)
@EnableConfigurationProperties(DelayTaskProperties.class)
public class DelayTaskDashboardAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DelayTaskDashboard delayTaskDashboard(DelayTaskProperties properties,
            ObjectProvider<PathMappedEndpoints> endpoints, Environment environment) {
        return new DelayTaskDashboard(properties.getDashboard().getPath(), endpoints, environment);
    }

    @Bean
    @ConditionalOnMissingBean(name = "delayTaskDashboardRoutes")
    RouterFunction<ServerResponse> delayTaskDashboardRoutes(DelayTaskDashboard dashboard) {
        return dashboard.routes();
    }

}
