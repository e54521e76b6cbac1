package io.github.delaytask.autoconfigure;

import java.time.Duration;

import io.github.delaytask.testsupport.BootLine;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DelayTaskRedisClusterAutoConfiguration}. No Redis is needed: Lettuce connects on first use.
 */
class DelayTaskRedisClusterAutoConfigurationTests {

    private static final String NODES = "spring.data.redis.cluster.nodes=127.0.0.1:7000,127.0.0.1:7001";

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(BootLine.REDIS, DelayTaskRedisClusterAutoConfiguration.class));

    @Test
    void clusterWithoutRefreshSettingsGetsAdaptiveAndPeriodicRefresh() {
        this.contextRunner.withPropertyValues(NODES).run((context) -> {
            ClusterTopologyRefreshOptions refresh = topologyRefresh(context);
            assertThat(refresh.getAdaptiveRefreshTriggers()).containsExactlyInAnyOrder(RefreshTrigger.values());
            assertThat(refresh.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
            assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(30));
            assertThat(refresh.useDynamicRefreshSources()).isTrue();
        });
    }

    @Test
    void bootsOwnClusterClientOptionsAreKept() {
        this.contextRunner.withPropertyValues(NODES, "spring.data.redis.connect-timeout=3s").run((context) -> {
            ClientOptions options = clientOptions(context);
            assertThat(options.getSocketOptions().getConnectTimeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(options.getTimeoutOptions().isTimeoutCommands()).isTrue();
        });
    }

    @Test
    void indexedClusterNodesCountAsACluster() {
        this.contextRunner
            .withPropertyValues("spring.data.redis.cluster.nodes[0]=127.0.0.1:7000",
                    "spring.data.redis.cluster.nodes[1]=127.0.0.1:7001")
            .run((context) -> assertThat(topologyRefresh(context).isPeriodicRefreshEnabled()).isTrue());
    }

    @Test
    void dynamicRefreshSourcesSettingIsKept() {
        this.contextRunner
            .withPropertyValues(NODES, "spring.data.redis.lettuce.cluster.refresh.dynamic-refresh-sources=false")
            .run((context) -> {
                assertThat(topologyRefresh(context).useDynamicRefreshSources()).isFalse();
                assertThat(topologyRefresh(context).isPeriodicRefreshEnabled()).isTrue();
            });
    }

    @Test
    void backsOffWhenTheUserSetAdaptiveRefresh() {
        this.contextRunner.withPropertyValues(NODES, "spring.data.redis.lettuce.cluster.refresh.adaptive=true")
            .run((context) -> {
                assertThat(context).doesNotHaveBean(BootLine.CLUSTER_CUSTOMIZER);
                assertThat(topologyRefresh(context).getAdaptiveRefreshTriggers()).isNotEmpty();
                assertThat(topologyRefresh(context).isPeriodicRefreshEnabled()).as("Boot's choice").isFalse();
            });
    }

    @Test
    void adaptiveFalseIsAnOptOutThatLeavesBootsAndLettucesDefaults() {
        this.contextRunner.withPropertyValues(NODES, "spring.data.redis.lettuce.cluster.refresh.adaptive=false")
            .run((context) -> {
                assertThat(context).doesNotHaveBean(BootLine.CLUSTER_CUSTOMIZER);
                assertThat(topologyRefresh(context).getAdaptiveRefreshTriggers()).isEqualTo(lettuceDefaultTriggers());
                assertThat(topologyRefresh(context).isPeriodicRefreshEnabled()).isFalse();
            });
    }

    @Test
    void backsOffWhenTheUserSetARefreshPeriod() {
        this.contextRunner.withPropertyValues(NODES, "spring.data.redis.lettuce.cluster.refresh.period=5s")
            .run((context) -> {
                assertThat(context).doesNotHaveBean(BootLine.CLUSTER_CUSTOMIZER);
                assertThat(topologyRefresh(context).getRefreshPeriod()).isEqualTo(Duration.ofSeconds(5));
                assertThat(topologyRefresh(context).getAdaptiveRefreshTriggers()).isEqualTo(lettuceDefaultTriggers());
            });
    }

    @Test
    void standaloneRedisIsLeftAlone() {
        this.contextRunner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=6379")
            .run((context) -> {
                assertThat(context).doesNotHaveBean(BootLine.CLUSTER_CUSTOMIZER);
                assertThat(clientOptions(context)).isNotInstanceOf(ClusterClientOptions.class);
            });
    }

    @Test
    void sentinelIsLeftAlone() {
        this.contextRunner
            .withPropertyValues("spring.data.redis.sentinel.master=mymaster",
                    "spring.data.redis.sentinel.nodes=127.0.0.1:26379")
            .run((context) -> assertThat(context).doesNotHaveBean(BootLine.CLUSTER_CUSTOMIZER));
    }

    @Test
    void backsOffWhenDelayTaskIsDisabled() {
        this.contextRunner.withPropertyValues(NODES, "delay-task.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(BootLine.CLUSTER_CUSTOMIZER));
    }

    @Test
    void applicationsOwnClientOptionsCustomizerRunsAfterOursAndWins() {
        this.contextRunner.withPropertyValues(NODES)
            .withUserConfiguration(BootLine.clientOptionsCustomizer())
            .run((context) -> {
                assertThat(topologyRefresh(context).getRefreshPeriod()).isEqualTo(Duration.ofSeconds(7));
                assertThat(topologyRefresh(context).getAdaptiveRefreshTriggers()).isEqualTo(lettuceDefaultTriggers());
            });
    }

    /** No trigger up to Lettuce 6 (Boot 3.5 and 4.0), every trigger from Lettuce 7 (Boot 4.1) on. */
    private static java.util.Set<RefreshTrigger> lettuceDefaultTriggers() {
        return ClusterTopologyRefreshOptions.builder().build().getAdaptiveRefreshTriggers();
    }

    private static ClientOptions clientOptions(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        return context.getBean(LettuceConnectionFactory.class)
            .getClientConfiguration()
            .getClientOptions()
            .orElseThrow();
    }

    private static ClusterTopologyRefreshOptions topologyRefresh(AssertableApplicationContext context) {
        assertThat(clientOptions(context)).isInstanceOf(ClusterClientOptions.class);
        return ((ClusterClientOptions) clientOptions(context)).getTopologyRefreshOptions();
    }

}
