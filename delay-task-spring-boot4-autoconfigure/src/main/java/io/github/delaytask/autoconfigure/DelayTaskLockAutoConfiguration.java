package io.github.delaytask.autoconfigure;

import io.github.delaytask.DistributedLock;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.lock.DistributedLockAnnotationBeanPostProcessor;
import io.github.delaytask.lock.LockDefaults;
import io.github.delaytask.lock.LockRecords;
import io.github.delaytask.lock.LockedRunner;
import io.github.delaytask.lock.RedisDistributedLocks;
import io.github.delaytask.lock.RedisLockRecords;
import io.github.delaytask.redis.RedisKeys;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Auto-configuration of the distributed lock and {@link DistributedLock @DistributedLock}, kept in Redis or in the
 * database ({@code delay-task.lock.store}): it needs one of them, not both, and runs before {@link
 * DelayTaskAutoConfiguration}, whose jobs then share its lock.
 * <p>
 * Proxies follow {@code spring.aop.proxy-target-class}, as Boot's own do: class-based unless it is {@code false}.
 */
@AutoConfiguration(afterName = { BootAutoConfigurationNames.REDIS_3, BootAutoConfigurationNames.REDIS_4,
        BootAutoConfigurationNames.DATA_SOURCE_3, BootAutoConfigurationNames.DATA_SOURCE_4,
        BootAutoConfigurationNames.TRANSACTION_MANAGER_3, BootAutoConfigurationNames.TRANSACTION_MANAGER_4 })
@ConditionalOnBooleanProperty(name = "delay-task.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DelayTaskProperties.class)
@Import(DelayTaskConfigurations.ClockConfiguration.class)
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
            BeanFactory beanFactory) {
        return new LockedRunner(locks, records.getIfAvailable(LockRecords::none),
                DelayTaskConfigurations.clock(beanFactory));
    }

    /**
     * The locks in the database, as chosen. The beans are in a class this one imports, not a member of it: a member
     * class of a configuration is processed whatever its outer class's conditions say.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcTemplate.class)
    @Conditional(LockStoreCondition.OnDatabase.class)
    @Import(DelayTaskConfigurations.DatabaseLockConfiguration.class)
    static class ChosenDatabaseLockConfiguration {

    }

    /** The locks in the database, for want of Redis. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcTemplate.class)
    @Conditional({ LockStoreCondition.OnAuto.class, DelayTaskConfigurations.OneDataSourceCondition.class,
            RedisUse.NotInUse.class })
    @Import(DelayTaskConfigurations.DatabaseLockConfiguration.class)
    static class NoRedisLockConfiguration {

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(StringRedisTemplate.class)
    @Conditional(RedisUse.InUse.class)
    @Import(DelayTaskConfigurations.KeysConfiguration.class)
    static class RedisLockConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(RedisDistributedLocks.class)
        LockRecords delayTaskLockRecords(StringRedisTemplate redisTemplate, RedisKeys keys) {
            return new RedisLockRecords(redisTemplate, keys);
        }

    }

}
