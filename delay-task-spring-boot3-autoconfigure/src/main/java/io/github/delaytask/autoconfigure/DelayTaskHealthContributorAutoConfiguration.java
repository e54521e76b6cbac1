package io.github.delaytask.autoconfigure;

import io.github.delaytask.actuate.DelayTaskHealthIndicator;
import io.github.delaytask.health.DelayTaskHealth;
import io.github.delaytask.store.TaskStore;

import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Auto-configuration of the {@code delayTask} health contributor, with Spring Boot Actuator on the class
 * path. {@code management.health.delaytask.enabled=false} switches it off.
 */
@AutoConfiguration(after = DelayTaskAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, StringRedisTemplate.class })
@ConditionalOnBean({ TaskStore.class, DelayTaskProperties.class })
@ConditionalOnEnabledHealthIndicator("delaytask")
@Import(DelayTaskConfigurations.HealthConfiguration.class)
public class DelayTaskHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = { "delayTaskHealthIndicator", "delayTaskHealthContributor" })
    public DelayTaskHealthIndicator delayTaskHealthIndicator(DelayTaskHealth health) {
        return new DelayTaskHealthIndicator(health);
    }

}
