package io.github.delaytask.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.github.delaytask.DistributedLocks;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.Scripts;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * {@link DistributedLocks} on Redis: {@code SET NX PX} with a random token, released and extended by Lua scripts
 * that compare the token first. Public for wiring.
 */
public class RedisDistributedLocks implements DistributedLocks {

    private static final RedisScript<Long> UNLOCK = Scripts.load("unlock", Long.class);

    private static final RedisScript<Long> EXTEND = Scripts.load("extend", Long.class);

    private final StringRedisTemplate redis;

    private final RedisKeys keys;

    private final Clock clock;

    public RedisDistributedLocks(StringRedisTemplate redis, RedisKeys keys, Clock clock) {
        this.redis = redis;
        this.keys = keys;
        this.clock = clock;
    }

    @Override
    public Optional<LockHandle> tryLock(String name, Duration lockAtMostFor) {
        Assert.hasText(name, "Lock name must not be empty");
        Assert.isTrue(lockAtMostFor.toMillis() > 0, "lockAtMostFor must be positive");
        String key = this.keys.lock(name);
        String token = UUID.randomUUID().toString();
        long takenAt = this.clock.millis();
        Boolean taken = this.redis.opsForValue().setIfAbsent(key, token, lockAtMostFor);
        return Boolean.TRUE.equals(taken) ? Optional.of(new RedisLockHandle(name, key, token, takenAt))
                : Optional.empty();
    }

    private final class RedisLockHandle implements LockHandle {

        private final String name;

        private final String key;

        private final String token;

        private final long takenAt;

        RedisLockHandle(String name, String key, String token, long takenAt) {
            this.name = name;
            this.key = key;
            this.token = token;
            this.takenAt = takenAt;
        }

        @Override
        public String name() {
            return this.name;
        }

        @Override
        public boolean unlock(Duration lockAtLeastFor) {
            long keep = this.takenAt + lockAtLeastFor.toMillis() - RedisDistributedLocks.this.clock.millis();
            Long owned = RedisDistributedLocks.this.redis.execute(UNLOCK, List.of(this.key), this.token,
                    Long.toString(Math.max(0, keep)));
            return owned != null && owned == 1;
        }

        @Override
        public boolean extend(Duration lockAtMostFor) {
            Long owned = RedisDistributedLocks.this.redis.execute(EXTEND, List.of(this.key), this.token,
                    Long.toString(lockAtMostFor.toMillis()));
            return owned != null && owned == 1;
        }

    }

}
