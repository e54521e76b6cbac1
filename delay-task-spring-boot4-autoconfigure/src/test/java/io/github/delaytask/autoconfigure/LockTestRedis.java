package io.github.delaytask.autoconfigure;

import java.util.UUID;

import io.github.delaytask.testsupport.TestBackend;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.lang.Nullable;

/**
 * The one Redis that the contexts (and processes) of a lock test share, under a key prefix of its own: embedded by
 * default, the real one on 127.0.0.1:6379 in the {@code real-services} group. The lock needs no database, so this
 * stands in for a {@link TestBackend} without one.
 */
final class LockTestRedis implements AutoCloseable {

    @Nullable
    private final TestBackend embedded;

    private final String host;

    private final int port;

    private final String keyPrefix;

    private LockTestRedis(@Nullable TestBackend embedded, String host, int port, String keyPrefix) {
        this.embedded = embedded;
        this.host = host;
        this.port = port;
        this.keyPrefix = keyPrefix;
    }

    static LockTestRedis embedded() {
        TestBackend backend = TestBackend.embedded();
        return new LockTestRedis(backend, backend.redisHost(), backend.redisPort(), backend.keyPrefix());
    }

    static LockTestRedis real() {
        return new LockTestRedis(null, "127.0.0.1", 6379,
                "delay-task-test-" + UUID.randomUUID().toString().substring(0, 8));
    }

    String host() {
        return this.host;
    }

    int port() {
        return this.port;
    }

    String keyPrefix() {
        return this.keyPrefix;
    }

    /** Spring properties pointing an application at this Redis. */
    String[] properties() {
        return new String[] { "spring.data.redis.host=" + this.host, "spring.data.redis.port=" + this.port,
                "delay-task.redis.key-prefix=" + this.keyPrefix };
    }

    /** Delete every key under this Redis's prefix. */
    void deleteKeys() {
        if (this.embedded != null) {
            this.embedded.deleteRedisKeys();
            return;
        }
        RedisClient client = RedisClient.create("redis://" + this.host + ":" + this.port);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(this.keyPrefix + ":*"));
                if (!page.getKeys().isEmpty()) {
                    redis.del(page.getKeys().toArray(new String[0]));
                }
                cursor = page;
            }
            while (!cursor.isFinished());
        }
        finally {
            client.shutdown();
        }
    }

    @Override
    public void close() {
        if (this.embedded != null) {
            this.embedded.close();
        }
        else {
            deleteKeys();
        }
    }

}
