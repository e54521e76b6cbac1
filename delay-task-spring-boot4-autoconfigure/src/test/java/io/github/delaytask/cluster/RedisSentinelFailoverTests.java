package io.github.delaytask.cluster;

import org.junit.jupiter.api.Tag;

/**
 * The end-to-end checks and a fail-over against a master, its replica and three Sentinels
 * ({@code spring.data.redis.sentinel.*}). Lettuce asks the Sentinels for the master again when it reconnects, so
 * nothing but the servers' own fail-over is needed.
 */
@Tag("cluster")
class RedisSentinelFailoverTests extends AbstractRedisFailoverTests {

    @Override
    LocalRedis startRedis() {
        return LocalRedisSentinel.start();
    }

}
