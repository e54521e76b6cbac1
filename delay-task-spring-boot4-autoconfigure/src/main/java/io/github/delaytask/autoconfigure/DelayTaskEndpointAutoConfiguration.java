package io.github.delaytask.autoconfigure;

import java.util.Map;

import io.github.delaytask.DelayTaskService;
import io.github.delaytask.actuate.DelayTasksEndpoint;
import io.github.delaytask.actuate.DelayTasksEndpointWebExtension;
import io.github.delaytask.actuate.RecentActivity;
import io.github.delaytask.core.QueueOverview;
import io.github.delaytask.core.QueueRegistry;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.listener.DelayTaskListenerAnnotationBeanPostProcessor;
import io.github.delaytask.listener.DelayTaskListenerEndpointRegistry;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.TaskStore;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code delaytasks} Actuator endpoint. Like every endpoint it is created only when
 * exposed ({@code management.endpoints.web.exposure.include}) and its access allows it
 * ({@code management.endpoint.delaytasks.access}: {@code read-only} keeps the changes by hand out). Tasks'
 * parameters are shown as {@code management.endpoint.delaytasks.show-parameters} says: never by default.
 */
@AutoConfiguration(after = DelayTaskAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnAvailableEndpoint(DelayTasksEndpoint.class)
@EnableConfigurationProperties(DelayTasksEndpointProperties.class)
public class DelayTaskEndpointAutoConfiguration {

    @Bean
    @ConditionalOnBean({ DelayTaskService.class, TaskStore.class, QueueRegistry.class })
    @ConditionalOnMissingBean
    public DelayTasksEndpoint delayTasksEndpoint(DelayTaskService service, TaskStore store,
            QueueRegistry administration,
            ObjectProvider<DelayTaskListenerEndpointRegistry> listeners,
            ObjectProvider<DelayTaskListenerAnnotationBeanPostProcessor> names, ObjectProvider<DelayTaskJobs> jobs,
            RecentActivity activity, DelayTasksEndpointProperties properties, BeanFactory beanFactory) {
        // listeners are off with delay-task.listener.enabled=false; the queues of other instances still show
        QueueOverview overview = new QueueOverview(store, administration, () -> listeners.stream()
            .findFirst()
            .map(DelayTaskListenerEndpointRegistry::listeners)
            .orElse(Map.of()), () -> names.stream()
                .findFirst()
                .map(DelayTaskListenerAnnotationBeanPostProcessor::taskTypeNames)
                .orElse(Map.of()));
        return new DelayTasksEndpoint(service, overview,
                () -> jobs.stream().findFirst().map(DelayTaskJobs::lastReload).orElse(null), activity,
                DelayTaskConfigurations.dueClock(beanFactory), properties.getShowParameters(), properties.getRoles());
    }

    /** What the endpoint shows of this instance's recent runs; the service, claims, outcomes and listeners tell it. */
    @Bean
    @ConditionalOnBean({ DelayTaskService.class, TaskStore.class, TaskQueues.class })
    @ConditionalOnMissingBean
    public RecentActivity delayTaskRecentActivity(BeanFactory beanFactory) {
        return new RecentActivity(DelayTaskConfigurations.clock(beanFactory));
    }

    @Bean
    @ConditionalOnBean(DelayTasksEndpoint.class)
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    public DelayTasksEndpointWebExtension delayTasksEndpointWebExtension(DelayTasksEndpoint endpoint) {
        return new DelayTasksEndpointWebExtension(endpoint);
    }

}
