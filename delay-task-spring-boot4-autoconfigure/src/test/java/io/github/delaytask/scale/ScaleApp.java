package io.github.delaytask.scale;

import io.github.delaytask.autoconfigure.DelayTaskAutoConfiguration;
import io.github.delaytask.autoconfigure.DelayTaskLockAutoConfiguration;
import io.github.delaytask.autoconfigure.DelayTaskRedisClusterAutoConfiguration;
import io.github.delaytask.testsupport.ImportDataAutoConfiguration;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Configuration;

/**
 * What every application of the scale test has: Redis, a data source, MyBatis-Plus and the starter's
 * auto-configurations, as an application with {@code @SpringBootApplication} would get them.
 */
@Configuration(proxyBeanMethods = false)
@ImportDataAutoConfiguration
@ImportAutoConfiguration({ DelayTaskRedisClusterAutoConfiguration.class, DelayTaskLockAutoConfiguration.class,
        DelayTaskAutoConfiguration.class })
class ScaleApp {

}
