package io.github.delaytask.cluster;

import java.util.Arrays;
import java.util.List;

import io.github.delaytask.redis.AbstractRedisTaskQueuesContractTests;
import org.junit.jupiter.api.Tag;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The queues' contract on a Redis Cluster of three masters with a replica each, started by the test. */
@Tag("cluster")
class RedisClusterTaskQueuesContractTests extends AbstractRedisTaskQueuesContractTests {

    private LocalRedisCluster cluster;

    @Override
    protected LettuceConnectionFactory connect() {
        this.cluster = LocalRedisCluster.start();
        return new LettuceConnectionFactory(new RedisClusterConfiguration(nodes(this.cluster.properties())));
    }

    static List<String> nodes(List<String> properties) {
        return properties.stream()
            .filter((property) -> property.contains(".nodes="))
            .flatMap((property) -> Arrays.stream(property.substring(property.indexOf('=') + 1).split(",")))
            .toList();
    }

    @Override
    protected void stopServers() {
        if (this.cluster != null) {
            this.cluster.close();
        }
    }

}
