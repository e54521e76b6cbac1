package io.github.delaytask.autoconfigure;

import java.time.Clock;

import io.github.delaytask.DistributedLock;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.lock.DistributedLockAnnotationBeanPostProcessor;
import io.github.delaytask.lock.LockDefaults;
import io.github.delaytask.lock.LockRecords;
import io.github.delaytask.lock.LockedRunner;
import io.github.delaytask.lock.RedisDistributedLocks;
import io.github.delaytask.lock.RedisLockRecords;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.store.TaskStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Auto-configuration of the distributed lock and {@link DistributedLock @DistributedLock}. It needs Redis but no
 * database, and runs before {@link DelayTaskAutoConfiguration}, whose jobs then share its lock.
 * <p>
 * Proxies follow {@code spring.aop.proxy-target-class}, as Boot's own do: class-based unless it is {@code false}.
 */
@AutoConfiguration(after = RedisAutoConfiguration.class, before = DelayTaskAutoConfiguration.class)
@ConditionalOnProperty(prefix = "delay-task", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(DelayTaskProperties.class)
public class DelayTaskLockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public static DistributedLockAnnotationBeanPostProcessor delayTaskDistributedLockPostProcessor(
            Environment environment, ObjectProvider<LockedRunner> runner) {
        // bound here rather than injected: a post-processor must not make the properties bean early
        DelayTaskProperties.Lock lock = Binder.get(environment)
            .bindOrCreate("delay-task.lock", DelayTaskProperties.Lock.class);
        DistributedLockAnnotationBeanPostProcessor processor = new DistributedLockAnnotationBeanPostProcessor(
                new LockDefaults(lock.getLockAtMostFor(), lock.getLockAtLeastFor()), DurationStyle::detectAndParse,
                runner::getIfAvailable);
        processor.setProxyTargetClass(environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true));
        return processor;
    }

    @Bean
    @ConditionalOnBean(DistributedLocks.class)
    @ConditionalOnMissingBean
    public LockedRunner delayTaskLockedRunner(DistributedLocks locks, ObjectProvider<LockRecords> records,
            ObjectProvider<Clock> clock) {
        return new LockedRunner(locks, records.getIfAvailable(LockRecords::none), clock.getIfUnique(Clock::systemUTC));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(StringRedisTemplate.class)
    @ConditionalOnBean(StringRedisTemplate.class)
    static class RedisLockConfiguration {

        @Bean
        @ConditionalOnMissingBean
        public RedisKeys delayTaskRedisKeys(DelayTaskProperties properties, ObjectProvider<TaskStore> store) {
            return DelayTaskRedisKeys.of(properties, store);
        }

        @Bean
        @ConditionalOnMissingBean(DistributedLocks.class)
        public RedisDistributedLocks delayTaskLocks(StringRedisTemplate redisTemplate, RedisKeys keys,
                ObjectProvider<Clock> clock) {
            return new RedisDistributedLocks(redisTemplate, keys, clock.getIfUnique(Clock::systemUTC));
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(RedisDistributedLocks.class)
        public LockRecords delayTaskLockRecords(StringRedisTemplate redisTemplate, RedisKeys keys) {
            return new RedisLockRecords(redisTemplate, keys);
        }

    }

}
