package io.github.delaytask.autoconfigure;

import com.baomidou.mybatisplus.extension.plugins.inner.OptimisticLockerInnerInterceptor;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.TaskEvents;
import io.github.delaytask.listener.DelayTaskListenerAnnotationBeanPostProcessor;
import io.github.delaytask.listener.DelayTaskListenerEndpointRegistry;
import io.github.delaytask.metrics.DatabaseDispatchMeter;
import io.github.delaytask.metrics.DelayTaskMeters;
import io.github.delaytask.metrics.MicrometerTaskEvents;
import io.github.delaytask.metrics.JobMeters;
import io.github.delaytask.metrics.QueueStatsSampler;
import io.github.delaytask.observation.TaskObservations;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.TaskStore;
import io.micrometer.core.instrument.MeterRegistry;
import org.mybatis.spring.SqlSessionTemplate;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.COMPOSITE_METER_REGISTRY_3;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.COMPOSITE_METER_REGISTRY_4;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.METRICS_3;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.METRICS_4;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.MYBATIS_PLUS;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.REDIS_3;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.REDIS_4;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.SIMPLE_METRICS_EXPORT_3;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.SIMPLE_METRICS_EXPORT_4;

/**
 * Micrometer meters of delay-task, when the application has a {@link MeterRegistry}: tasks added and completed,
 * handler lateness and duration, the handler pool, and the size, latency and dead tasks of every queue.
 * <p>
 * Ordered before {@link DelayTaskAutoConfiguration}, whose service, claims, outcomes and listeners take the
 * {@link TaskEvents} bean defined here; its conditions are the same, so both are on or off together.
 */
@AutoConfiguration(before = DelayTaskAutoConfiguration.class, afterName = { METRICS_3, METRICS_4,
        COMPOSITE_METER_REGISTRY_3, COMPOSITE_METER_REGISTRY_4, SIMPLE_METRICS_EXPORT_3, SIMPLE_METRICS_EXPORT_4,
        REDIS_3, REDIS_4, MYBATIS_PLUS })
@ConditionalOnClass({ MeterRegistry.class, StringRedisTemplate.class, SqlSessionTemplate.class,
        OptimisticLockerInnerInterceptor.class })
@ConditionalOnBean({ MeterRegistry.class, SqlSessionTemplate.class })
@ConditionalOnBooleanProperty(name = "delay-task.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DelayTaskProperties.class)
@Import({ DelayTaskConfigurations.RedisClockConfiguration.class,
        DelayTaskConfigurations.DatabaseClockConfiguration.class })
public class DelayTaskMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DelayTaskMeters delayTaskMeters(MeterRegistry registry, DelayTaskProperties properties,
            ObjectProvider<TaskObservations> observations,
            ObjectProvider<DelayTaskListenerAnnotationBeanPostProcessor> listeners) {
        // the observation's meter handler times handler runs under the same name, with tags of its own
        boolean observed = observations.getIfAvailable(() -> TaskObservations.NONE).enabled();
        // asked as each queue gets its meters, by then its listener is known
        return new DelayTaskMeters(registry, properties.getMetrics().getMaxQueues(), !observed,
                (type) -> listeners.stream().findFirst().map((found) -> found.taskTypeNames().get(type))
                    .orElse(null));
    }

    @Bean
    @ConditionalOnMissingBean(TaskEvents.class)
    MicrometerTaskEvents delayTaskEvents(DelayTaskMeters meters, BeanFactory beanFactory) {
        // lateness is measured on the clock tasks fall due by
        return new MicrometerTaskEvents(meters, DelayTaskConfigurations.dueClock(beanFactory));
    }

    /** The queues' sizes in Redis; without Redis they are not sampled. */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(RedisUse.InUse.class)
    QueueStatsSampler delayTaskQueueStatsSampler(DelayTaskMeters meters, QueueAdministration administration,
            TaskStore store, ObjectProvider<DelayTaskListenerEndpointRegistry> listeners) {
        return new QueueStatsSampler(meters, administration, store,
                () -> listeners.orderedStream().flatMap((registry) -> registry.queues().stream()).toList());
    }

    @Bean
    @ConditionalOnMissingBean
    JobMeters delayTaskJobMeters(MeterRegistry registry, ObjectProvider<DelayTaskJobs> jobs) {
        return new JobMeters(registry, jobs);
    }

    @Bean
    @ConditionalOnMissingBean
    DatabaseDispatchMeter delayTaskDatabaseDispatchMeter(MeterRegistry registry, ObjectProvider<Claims> claims) {
        return new DatabaseDispatchMeter(registry, claims);
    }

}
