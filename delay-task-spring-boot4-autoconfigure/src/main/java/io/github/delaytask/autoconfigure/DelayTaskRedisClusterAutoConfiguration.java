package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Auto-configuration that keeps Lettuce's view of a Redis Cluster current, so that delay-task survives a fail-over.
 * <p>
 * Spring Boot turns Lettuce's cluster topology refresh on only when
 * {@code spring.data.redis.lettuce.cluster.refresh.adaptive} or {@code .period} is set. Without it, commands for
 * the slots of a failed master keep going to that master and time out long after a replica took its place. When
 * {@code spring.data.redis.cluster.nodes} is set and neither refresh property is, this turns on every adaptive
 * refresh trigger, at most one adaptive refresh per 5 seconds, and a periodic refresh every 30 seconds. Setting
 * either property, even to {@code adaptive=false}, leaves Boot's behaviour as it is.
 */
@AutoConfiguration(beforeName = { BootAutoConfigurationNames.REDIS_3, BootAutoConfigurationNames.REDIS_4 })
@ConditionalOnClass(ClusterClientOptions.class)
@ConditionalOnBooleanProperty(name = "delay-task.enabled", matchIfMissing = true)
@Conditional(DelayTaskRedisClusterAutoConfiguration.ClusterWithoutTopologyRefreshCondition.class)
@Import(ClusterTopologyRefreshCustomizerConfiguration.class)
public class DelayTaskRedisClusterAutoConfiguration {

    static final Duration PERIODIC_REFRESH = Duration.ofSeconds(30);

    /**
     * The first failed reconnects trigger a refresh before the replica took over; Lettuce's default of 30 seconds
     * between adaptive refreshes would hold back the next one, which finds the replica.
     */
    static final Duration ADAPTIVE_REFRESH_TIMEOUT = Duration.ofSeconds(5);

    private static final String NODES = "spring.data.redis.cluster.nodes";

    private static final String REFRESH = "spring.data.redis.lettuce.cluster.refresh.";

    /** The refresh options of a cluster: every adaptive trigger, and a periodic refresh. */
    static ClusterTopologyRefreshOptions refreshOptions(Environment environment) {
        boolean dynamicRefreshSources = Binder.get(environment)
            .bind(REFRESH + "dynamic-refresh-sources", Boolean.class)
            .orElse(true);
        return ClusterTopologyRefreshOptions.builder()
            .dynamicRefreshSources(dynamicRefreshSources)
            .enableAllAdaptiveRefreshTriggers()
            .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_TIMEOUT)
            .enablePeriodicRefresh(PERIODIC_REFRESH)
            .build();
    }

    /**
     * Matches when the cluster nodes are set and no topology refresh property is, in any relaxed form.
     */
    static class ClusterWithoutTopologyRefreshCondition extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            ConditionMessage.Builder message = ConditionMessage.forCondition("Redis Cluster without topology refresh");
            Binder binder = Binder.get(context.getEnvironment());
            boolean cluster = binder.bind(NODES, Bindable.listOf(String.class))
                .map((nodes) -> !nodes.isEmpty())
                .orElse(false);
            if (!cluster) {
                return ConditionOutcome.noMatch(message.didNotFind("property").items(NODES));
            }
            for (String name : List.of(REFRESH + "adaptive", REFRESH + "period")) {
                if (binder.bind(name, String.class).isBound()) {
                    return ConditionOutcome.noMatch(message.found("property").items(name));
                }
            }
            return ConditionOutcome.match(message.foundExactly("cluster nodes and no topology refresh property"));
        }

    }

}
