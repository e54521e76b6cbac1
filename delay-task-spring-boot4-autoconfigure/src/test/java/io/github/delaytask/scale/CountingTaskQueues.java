package io.github.delaytask.scale;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

import io.github.delaytask.core.Claim;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.RedisTaskQueues;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The starter's {@link TaskQueues}, counting the claims of this instance's dispatcher: how many claims ran (a claim
 * over many queues, one pipeline of scripts followed by one database statement, counts once), how many of them
 * handed out tasks, and how many tasks. The refresh job's moves (a claim of no task) are not counted.
 */
final class CountingTaskQueues extends RedisTaskQueues {

    private final LongAdder claims = new LongAdder();

    private final LongAdder claimsWithTasks = new LongAdder();

    private final LongAdder claimedTasks = new LongAdder();

    CountingTaskQueues(StringRedisTemplate redis, RedisKeys keys) {
        super(redis, keys);
    }

    @Override
    public Claim claim(QueueId queue, int max, Duration lease) {
        Claim claim = super.claim(queue, max, lease);
        if (max > 0) {
            this.claims.increment();
            if (!claim.taskIds().isEmpty()) {
                this.claimsWithTasks.increment();
                this.claimedTasks.add(claim.taskIds().size());
            }
        }
        return claim;
    }

    @Override
    public Claims claimAll(Map<QueueId, Integer> counts, Duration lease, Set<QueueId> timed) {
        Claims claims = super.claimAll(counts, lease, timed);
        this.claims.increment();
        int tasks = claims.claimed().values().stream().mapToInt((claim) -> claim.taskIds().size()).sum();
        if (tasks > 0) {
            this.claimsWithTasks.increment();
            this.claimedTasks.add(tasks);
        }
        return claims;
    }

    long claims() {
        return this.claims.sum();
    }

    long claimsWithTasks() {
        return this.claimsWithTasks.sum();
    }

    long claimedTasks() {
        return this.claimedTasks.sum();
    }

}
