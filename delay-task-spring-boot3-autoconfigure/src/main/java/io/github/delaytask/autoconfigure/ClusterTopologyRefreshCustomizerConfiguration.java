package io.github.delaytask.autoconfigure;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.boot.autoconfigure.data.redis.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * The customizer of {@link DelayTaskRedisClusterAutoConfiguration}, whose type Spring Boot 3 keeps in a package of
 * its own.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(LettuceClientOptionsBuilderCustomizer.class)
class ClusterTopologyRefreshCustomizerConfiguration {

    /**
     * Boot's {@code LettuceConnectionConfiguration} sets the refresh options from the properties first and runs
     * these customizers after, so ours are kept (a {@code LettuceClientConfigurationBuilderCustomizer} could only
     * replace Boot's whole client options). The order runs the application's own customizers after ours.
     */
    @Bean
    @Order(0)
    LettuceClientOptionsBuilderCustomizer delayTaskClusterTopologyRefreshCustomizer(Environment environment) {
        ClusterTopologyRefreshOptions refresh = DelayTaskRedisClusterAutoConfiguration.refreshOptions(environment);
        return (builder) -> {
            // a cluster described by a RedisConnectionDetails bean rather than properties gets plain options
            if (builder instanceof ClusterClientOptions.Builder cluster) {
                cluster.topologyRefreshOptions(refresh);
            }
        };
    }

}
