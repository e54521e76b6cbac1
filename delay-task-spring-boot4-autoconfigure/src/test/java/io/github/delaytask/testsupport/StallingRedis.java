package io.github.delaytask.testsupport;

import io.github.delaytask.redis.RedisKeys;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * An embedded Redis reached two ways, with Lettuce's default command timeout of a minute: through a proxy that can
 * hold what either side sends ({@link #stall()}), as a Redis that stops answering, and directly, as another instance
 * or the test sees it. Keys under a prefix of the test's own.
 */
public final class StallingRedis implements AutoCloseable {

    private final TestBackend backend;

    private final TcpProxy proxy;

    private final LettuceConnectionFactory throughProxy;

    private final LettuceConnectionFactory direct;

    private StallingRedis(TestBackend backend) {
        this.backend = backend;
        this.proxy = TcpProxy.start(backend.redisHost(), backend.redisPort());
        this.throughProxy = connect(this.proxy.port());
        this.direct = connect(backend.redisPort());
    }

    public static StallingRedis start() {
        TestBackend backend = TestBackend.embedded();
        try {
            return new StallingRedis(backend);
        }
        catch (RuntimeException ex) {
            backend.close();
            throw ex;
        }
    }

    private LettuceConnectionFactory connect(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(this.backend.redisHost(), port));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    /** Redis as reached through the proxy, which may stall. */
    public StringRedisTemplate throughProxy() {
        return new StringRedisTemplate(this.throughProxy);
    }

    /** Redis reached directly, which never stalls. */
    public StringRedisTemplate direct() {
        return new StringRedisTemplate(this.direct);
    }

    public RedisKeys keys() {
        return new RedisKeys(this.backend.keyPrefix());
    }

    /** Hold whatever either side sends until {@link #resume()}; connections stay open. */
    public void stall() {
        this.proxy.stall();
    }

    /** Let what was held, and what follows, through. */
    public void resume() {
        this.proxy.resume();
    }

    /** Close every connection through the proxy, unanswered, and refuse new ones until {@link #restore()}. */
    public void cut() {
        this.proxy.cut();
    }

    /** Let new connections through the proxy again. */
    public void restore() {
        this.proxy.restore();
    }

    @Override
    public void close() {
        try {
            this.proxy.close();
            this.throughProxy.destroy();
            this.direct.destroy();
        }
        finally {
            this.backend.close();
        }
    }

}
