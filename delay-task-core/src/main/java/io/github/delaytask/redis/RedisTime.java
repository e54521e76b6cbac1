package io.github.delaytask.redis;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The Redis server's time, which decides when tasks are due: what {@link io.github.delaytask.core.ServerClock} reads
 * when the queues are in Redis. Public for wiring.
 */
public final class RedisTime {

    private RedisTime() {
    }

    /** Reads the Redis server's time, epoch ms, with {@code TIME}. */
    public static LongSupplier of(StringRedisTemplate redis) {
        return () -> {
            Long time = redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands()
                .time(TimeUnit.MILLISECONDS));
            if (time == null) {
                throw new IllegalStateException("Redis answered TIME with nothing");
            }
            return time;
        };
    }

}
