package io.github.delaytask.autoconfigure;

import com.baomidou.mybatisplus.extension.plugins.inner.OptimisticLockerInnerInterceptor;
import org.mybatis.spring.SqlSessionTemplate;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.DATA_SOURCE_3;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.DATA_SOURCE_4;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.JACKSON_3;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.JACKSON_4;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.MYBATIS_PLUS;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.REDIS_3;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.REDIS_4;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.TRANSACTION_3;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.TRANSACTION_4;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.TRANSACTION_MANAGER_3;
import static io.github.delaytask.autoconfigure.BootAutoConfigurationNames.TRANSACTION_MANAGER_4;

/**
 * Auto-configuration of delay-task: the task service, its store on MyBatis-Plus, its queues on Redis, the
 * listener containers and the reload and refresh jobs. Without Redis ({@code delay-task.redis.enabled=false}, or no
 * Redis connection in the application) the database alone dispatches every queue, and only the purge job runs.
 * <p>
 * Due-ness is decided by the Redis server's clock (without Redis, the database's), so delays, back-offs and leases
 * are computed on it too: the bean named {@code delayTaskRedisClock} is this instance's clock (the bean named
 * {@code delayTaskClock}) put right by its measured offset from that server's.
 */
@AutoConfiguration(afterName = { REDIS_3, REDIS_4, DATA_SOURCE_3, DATA_SOURCE_4, TRANSACTION_MANAGER_3,
        TRANSACTION_MANAGER_4, TRANSACTION_3, TRANSACTION_4, JACKSON_3, JACKSON_4, MYBATIS_PLUS },
        after = DelayTaskLockAutoConfiguration.class)
@ConditionalOnClass({ StringRedisTemplate.class, SqlSessionTemplate.class, OptimisticLockerInnerInterceptor.class })
@ConditionalOnBean(SqlSessionTemplate.class)
@ConditionalOnBooleanProperty(name = "delay-task.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DelayTaskProperties.class)
@Import({ DelayTaskConfigurations.ClockConfiguration.class, DelayTaskConfigurations.RedisClockConfiguration.class,
        DelayTaskConfigurations.DatabaseClockConfiguration.class, DelayTaskConfigurations.KeysConfiguration.class,
        DelayTaskConfigurations.ObservationConfiguration.class,
        DelayTaskConfigurations.ContextConfiguration.class, DelayTaskConfigurations.StoreConfiguration.class,
        DelayTaskJsonConfiguration.class,
        DelayTaskConfigurations.RedisQueuesConfiguration.class,
        DelayTaskConfigurations.DatabaseQueuesConfiguration.class,
        DelayTaskConfigurations.ServiceConfiguration.class, DelayTaskConfigurations.ListenerConfiguration.class,
        DelayTaskConfigurations.JobsConfiguration.class, DelayTaskConfigurations.DatabaseJobsLockConfiguration.class,
        DelayTaskConfigurations.SchedulesConfiguration.class })
public class DelayTaskAutoConfiguration {

}
