package io.github.delaytask.autoconfigure;

import io.github.delaytask.actuate.ScheduledLocksEndpoint;
import io.github.delaytask.actuate.ScheduledLocksEndpointWebExtension;
import io.github.delaytask.lock.DistributedLockAnnotationBeanPostProcessor;
import io.github.delaytask.lock.LockedRunner;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code scheduledlocks} Actuator endpoint. Like every endpoint it is created only when
 * exposed ({@code management.endpoints.web.exposure.include}) and its access allows it
 * ({@code management.endpoint.scheduledlocks.access}).
 */
@AutoConfiguration(after = DelayTaskLockAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnAvailableEndpoint(ScheduledLocksEndpoint.class)
public class DelayTaskLockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnBean({ DistributedLockAnnotationBeanPostProcessor.class, LockedRunner.class })
    @ConditionalOnMissingBean
    public ScheduledLocksEndpoint scheduledLocksEndpoint(DistributedLockAnnotationBeanPostProcessor processor,
            LockedRunner runner) {
        return new ScheduledLocksEndpoint(processor.getLockedJobs(), runner);
    }

    @Bean
    @ConditionalOnBean(ScheduledLocksEndpoint.class)
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    public ScheduledLocksEndpointWebExtension scheduledLocksEndpointWebExtension(ScheduledLocksEndpoint endpoint) {
        return new ScheduledLocksEndpointWebExtension(endpoint);
    }

}
