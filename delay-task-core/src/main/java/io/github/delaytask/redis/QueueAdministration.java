package io.github.delaytask.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.QueueRegistry;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * What operators and the jobs do with queues apart from the task path: pause and resume them, read their
 * statistics, and keep the registry of queues in use. Public for wiring.
 */
public class QueueAdministration implements QueueRegistry {

    private final StringRedisTemplate redis;

    private final RedisKeys keys;

    private final RedisScript<List<String>> statsScript = Scripts.load("queue-stats", Scripts.STRING_LIST);

    public QueueAdministration(StringRedisTemplate redis, RedisKeys keys) {
        this.redis = redis;
        this.keys = keys;
    }

    /**
     * Stop every instance from claiming the queue's tasks, until {@link #resume}. A flag in Redis rather than in the
     * database, as every claim reads it; Redis loses it with the rest of its data.
     * @return whether this call paused it; {@code false} if it was paused already
     */
    @Override
    public boolean pause(QueueId queue) {
        register(queue);
        return Boolean.TRUE.equals(this.redis.opsForValue().setIfAbsent(this.keys.paused(queue), "paused"));
    }

    /**
     * Let the queue's tasks be claimed again.
     * @return whether this call resumed it; {@code false} if it was not paused
     */
    @Override
    public boolean resume(QueueId queue) {
        return Boolean.TRUE.equals(this.redis.delete(this.keys.paused(queue)));
    }

    /** Whether the queue is paused. */
    @Override
    public boolean paused(QueueId queue) {
        return Boolean.TRUE.equals(this.redis.hasKey(this.keys.paused(queue)));
    }

    /** Every queue of the registry that is paused: a call per queue, for an operator rather than a claim. */
    @Override
    public Set<QueueId> pausedQueues() {
        Set<QueueId> paused = new LinkedHashSet<>();
        queues().stream().filter(this::paused).forEach(paused::add);
        return paused;
    }

    /** Record that a queue is in use: a paused queue stays listed, so that every instance still shows it. */
    private void register(QueueId queue) {
        this.redis.opsForSet().add(this.keys.queues(), queue.toString());
    }

    /**
     * Take a queue out of the registry if it holds no task now, so that the refresh job does not visit it forever.
     * A task added at that moment may find its queue out of the registry until the next write of a task of that
     * queue, or the feed's, registers it again; only the refresh job reads the registry, and dispatchers move the
     * due tasks of their own queues.
     * @return whether the queue was empty and left the registry
     */
    public boolean unregisterIfEmpty(QueueId queue) {
        long[] sizes = sizes(queue);
        if (sizes[0] + sizes[1] + sizes[2] > 0) {
            return false;
        }
        this.redis.opsForSet().remove(this.keys.queues(), queue.toString());
        return true;
    }

    /** Up to {@code limit} ids of each of a queue's ready and in-flight sets, for the clean-up of an idle queue. */
    public List<Long> idsReadyOrInFlight(QueueId queue, int limit) {
        List<Long> ids = new ArrayList<>();
        for (String key : List.of(this.keys.ready(queue), this.keys.inFlight(queue))) {
            Set<String> members = this.redis.opsForZSet().range(key, 0, limit - 1);
            if (members != null) {
                members.forEach((member) -> ids.add(Long.parseLong(member)));
            }
        }
        return ids;
    }

    /** Drop ids of finished tasks from a queue's ready and in-flight sets. */
    public void forget(QueueId queue, Collection<Long> taskIds) {
        if (!taskIds.isEmpty()) {
            Object[] members = taskIds.stream().map(String::valueOf).toArray();
            this.redis.opsForZSet().remove(this.keys.ready(queue), members);
            this.redis.opsForZSet().remove(this.keys.inFlight(queue), members);
        }
    }

    /** Every queue in use, from the registry rather than by listing keys. */
    @Override
    public Set<QueueId> queues() {
        Collection<String> members = this.redis.opsForSet().members(this.keys.queues());
        Set<QueueId> queues = new LinkedHashSet<>();
        if (members != null) {
            members.forEach((member) -> queues.add(QueueId.parse(member)));
        }
        return queues;
    }

    /** Number of ids in a queue's future, ready and in-flight sets, for monitoring and tests. */
    public long[] sizes(QueueId queue) {
        Long future = this.redis.opsForZSet().zCard(this.keys.future(queue));
        Long ready = this.redis.opsForZSet().zCard(this.keys.ready(queue));
        Long inFlight = this.redis.opsForZSet().zCard(this.keys.inFlight(queue));
        return new long[] { orZero(future), orZero(ready), orZero(inFlight) };
    }

    /** What a queue holds in each state and how long its oldest due task has waited, in one script call. */
    @Override
    public QueueStats stats(QueueId queue) {
        List<String> result = this.redis.execute(this.statsScript,
                List.of(this.keys.future(queue), this.keys.ready(queue), this.keys.inFlight(queue)));
        return new QueueStats(Long.parseLong(result.get(0)), Long.parseLong(result.get(1)),
                Long.parseLong(result.get(2)), Long.parseLong(result.get(3)));
    }

    private static long orZero(Long value) {
        return (value != null) ? value : 0;
    }

}
