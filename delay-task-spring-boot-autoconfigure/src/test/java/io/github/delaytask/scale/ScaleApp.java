package io.github.delaytask.scale;

import com.baomidou.mybatisplus.autoconfigure.MybatisPlusAutoConfiguration;
import io.github.delaytask.autoconfigure.DelayTaskAutoConfiguration;
import io.github.delaytask.autoconfigure.DelayTaskLockAutoConfiguration;
import io.github.delaytask.autoconfigure.DelayTaskRedisClusterAutoConfiguration;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;

/**
 * What every application of the scale test has: Redis, a data source, MyBatis-Plus and the starter's
 * auto-configurations, as an application with {@code @SpringBootApplication} would get them.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DelayTaskRedisClusterAutoConfiguration.class, RedisAutoConfiguration.class,
        DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
        TransactionAutoConfiguration.class, JacksonAutoConfiguration.class, MybatisPlusAutoConfiguration.class,
        DelayTaskLockAutoConfiguration.class, DelayTaskAutoConfiguration.class })
class ScaleApp {

}
