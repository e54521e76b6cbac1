package io.github.delaytask.redis;

import io.github.delaytask.testsupport.TestBackend;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The queues' contract on the embedded Redis, the zero-setup default. */
class EmbeddedRedisTaskQueuesContractTests extends AbstractRedisTaskQueuesContractTests {

    private TestBackend backend;

    @Override
    protected LettuceConnectionFactory connect() {
        this.backend = TestBackend.embedded();
        return new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(this.backend.redisHost(), this.backend.redisPort()));
    }

    @Override
    protected void stopServers() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

}
