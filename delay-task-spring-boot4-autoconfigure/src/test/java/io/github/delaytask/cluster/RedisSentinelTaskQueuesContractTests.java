package io.github.delaytask.cluster;

import java.util.HashSet;

import io.github.delaytask.redis.AbstractRedisTaskQueuesContractTests;
import org.junit.jupiter.api.Tag;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The queues' contract on a master and a replica behind three Sentinels, started by the test. */
@Tag("cluster")
class RedisSentinelTaskQueuesContractTests extends AbstractRedisTaskQueuesContractTests {

    private LocalRedisSentinel sentinel;

    @Override
    protected LettuceConnectionFactory connect() {
        this.sentinel = LocalRedisSentinel.start();
        return new LettuceConnectionFactory(new RedisSentinelConfiguration(LocalRedisSentinel.MASTER_NAME,
                new HashSet<>(RedisClusterTaskQueuesContractTests.nodes(this.sentinel.properties()))));
    }

    @Override
    protected void stopServers() {
        if (this.sentinel != null) {
            this.sentinel.close();
        }
    }

}
