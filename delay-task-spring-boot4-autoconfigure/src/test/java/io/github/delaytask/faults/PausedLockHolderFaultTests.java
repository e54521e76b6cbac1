package io.github.delaytask.faults;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;

import io.github.delaytask.DistributedLocks.LockHandle;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.lock.RedisDistributedLocks;
import io.github.delaytask.redis.RedisKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lock holder paused (a long GC pause, a frozen VM) past its lock's {@code lockAtMostFor}, on the real Redis: when
 * it wakes up it can neither release nor extend the lock that another instance took meanwhile.
 */
@Tag("faults")
class PausedLockHolderFaultTests {

    private final RedisKeys keys = new RedisKeys("delay-task-fault-" + UUID.randomUUID().toString().substring(0, 8));

    private LettuceConnectionFactory firstConnection;

    private LettuceConnectionFactory secondConnection;

    private StringRedisTemplate redis;

    @BeforeEach
    void connectTwoInstances() {
        this.firstConnection = connect();
        this.secondConnection = connect();
        this.redis = new StringRedisTemplate(this.firstConnection);
    }

    @AfterEach
    void deleteKeysAndDisconnect() {
        try {
            this.redis.delete(this.keys.lock("report"));
        }
        finally {
            this.firstConnection.destroy();
            this.secondConnection.destroy();
        }
    }

    @Test
    void holderPausedPastItsLockAtMostForNeitherReleasesNorExtendsTheLockAnotherInstanceNowHolds() {
        DistributedLocks first = new RedisDistributedLocks(this.redis, this.keys, Clock.systemUTC());
        DistributedLocks second = new RedisDistributedLocks(new StringRedisTemplate(this.secondConnection), this.keys,
                Clock.systemUTC());
        String key = this.keys.lock("report");
        LockHandle paused = first.tryLock("report", Duration.ofMillis(300)).orElseThrow();

        // the holder is paused; its lock lapses
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
            .until(() -> !Boolean.TRUE.equals(this.redis.hasKey(key)));
        LockHandle current = second.tryLock("report", Duration.ofSeconds(30)).orElseThrow();
        String token = this.redis.opsForValue().get(key);

        // the holder wakes up and goes on as if it still held the lock
        boolean extended = paused.extend(Duration.ofMillis(100));
        boolean releasedKeepingIt = paused.unlock(Duration.ofMillis(100));
        boolean released = paused.unlock();
        System.out.println("fault: paused-lock-holder tasks=0 lost=0 duplicates=0 stale-extend=" + extended
                + " stale-unlock=" + released + " stale-unlock-keeping=" + releasedKeepingIt);
        assertThat(extended).as("extend by the paused holder").isFalse();
        assertThat(releasedKeepingIt).as("unlock(lockAtLeastFor) by the paused holder").isFalse();
        assertThat(released).as("unlock by the paused holder").isFalse();
        assertThat(this.redis.opsForValue().get(key)).as("the lock is still the second holder's").isEqualTo(token);
        assertThat(this.redis.getExpire(key)).as("seconds left, not shortened").isGreaterThan(25);
        assertThat(first.tryLock("report", Duration.ofSeconds(30))).as("taken again by the first instance").isEmpty();
        assertThat(current.unlock()).isTrue();
        assertThat(this.redis.hasKey(key)).isFalse();
    }

    private static LettuceConnectionFactory connect() {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", 6379));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

}
