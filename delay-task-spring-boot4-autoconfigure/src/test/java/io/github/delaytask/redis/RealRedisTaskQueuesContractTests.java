package io.github.delaytask.redis;

import org.junit.jupiter.api.Tag;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The queues' contract on the real Redis of 127.0.0.1, shared with other tests: keys of the tests' own only. */
@Tag("real-services")
class RealRedisTaskQueuesContractTests extends AbstractRedisTaskQueuesContractTests {

    @Override
    protected LettuceConnectionFactory connect() {
        return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 6379));
    }

}
