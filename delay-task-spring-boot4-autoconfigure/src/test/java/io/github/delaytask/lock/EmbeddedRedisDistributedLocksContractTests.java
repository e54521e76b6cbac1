package io.github.delaytask.lock;

import java.time.Clock;
import java.util.UUID;

import io.github.delaytask.DistributedLocks;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The locks' contract on Redis, the default store of the locks, on the embedded Redis. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EmbeddedRedisDistributedLocksContractTests extends AbstractDistributedLocksContractTests {

    private TestBackend backend;

    private LettuceConnectionFactory factory;

    private StringRedisTemplate redis;

    private RedisKeys keys;

    @Override
    protected DistributedLocks createLocks() {
        if (this.factory == null) {
            this.backend = TestBackend.embedded();
            this.factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(this.backend.redisHost(), this.backend.redisPort()));
            this.factory.afterPropertiesSet();
            this.factory.start();
            this.redis = new StringRedisTemplate(this.factory);
        }
        this.keys = new RedisKeys("delay-task-locks-contract-" + UUID.randomUUID().toString().substring(0, 8));
        return new RedisDistributedLocks(this.redis, this.keys, Clock.systemUTC());
    }

    @Override
    protected LockRecords createRecords() {
        return new RedisLockRecords(this.redis, this.keys);
    }

    @Override
    protected void dropLocks() {
        if (this.keys != null) {
            this.redis.keys(this.keys.prefix() + "*").forEach(this.redis::delete);
        }
    }

    @AfterAll
    void close() {
        if (this.factory != null) {
            this.factory.destroy();
        }
        if (this.backend != null) {
            this.backend.close();
        }
    }

}
