package io.github.delaytask.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delaytask.core.QueueId;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The loaded marker of each queue, which tells when Redis lost the queue's data: every claim reads it, and a recovery
 * that reloads the queue from the database sets it. Redis loses the marker with the rest of its data. Public for
 * wiring.
 */
public class RecoveryMarkers {

    /** The start of a queue's marker once a recovery loaded it, before the Redis time the recovery began at. */
    private static final String LOADED = "loaded:";

    private final StringRedisTemplate redis;

    private final RedisKeys keys;

    private final RedisScript<Long> beginRecoveryScript = Scripts.load("begin-recovery", Long.class);

    private final RedisScript<Long> markLoadedScript = Scripts.load("mark-loaded", Long.class);

    private final RedisScript<Long> abortRecoveryScript = Scripts.load("abort-recovery", Long.class);

    public RecoveryMarkers(StringRedisTemplate redis, RedisKeys keys) {
        this.redis = redis;
        this.keys = keys;
    }

    /**
     * The queues, of those given, that no recovery marked loaded since Redis last lost them: their marker is missing,
     * or holds the id of a recovery that is still running or died.
     */
    public List<QueueId> unloaded(Collection<QueueId> queues) {
        Map<QueueId, Long> anyTime = new LinkedHashMap<>();
        queues.forEach((queue) -> anyTime.put(queue, Long.MIN_VALUE));
        return unloaded(anyTime);
    }

    /**
     * The queues, of those given, that no recovery marked loaded, or only one that began before the given time.
     * One call per queue: on a Cluster their markers lie in different slots.
     * @param since by queue, the Redis time (epoch ms, the clock of the queue's server) a recovery must have begun at
     * or after
     */
    public List<QueueId> unloaded(Map<QueueId, Long> since) {
        List<QueueId> unloaded = new ArrayList<>();
        since.forEach((queue, time) -> {
            String marker = this.redis.opsForValue().get(this.keys.loaded(queue));
            boolean loaded = marker != null && marker.startsWith(LOADED)
                    && Long.parseLong(marker.substring(LOADED.length())) >= time;
            if (!loaded) {
                unloaded.add(queue);
            }
        });
        return unloaded;
    }

    /**
     * Begin the recovery of queues: each marker takes the recovery's id and the server's time, which counts as a
     * marker for claims (the queue is being recovered) and which Redis loses with the rest of its data if it loses
     * them again meanwhile. Call it before reading the database.
     * @param queues the queues to recover
     * @param recoveryId an id no other recovery uses
     */
    public void beginRecovery(Collection<QueueId> queues, String recoveryId) {
        for (QueueId queue : queues) {
            this.redis.execute(this.beginRecoveryScript, List.of(this.keys.loaded(queue)), recoveryId);
        }
    }

    /**
     * End the recovery of queues, once the reload that followed {@link #beginRecovery} has written everything:
     * mark loaded each queue whose marker still holds the recovery's id.
     * @return the queues marked; the others lost the marker since (Redis lost data again) or another recovery took
     * them over
     */
    public List<QueueId> finishRecovery(Collection<QueueId> queues, String recoveryId) {
        List<QueueId> marked = new ArrayList<>();
        for (QueueId queue : queues) {
            Long done = this.redis.execute(this.markLoadedScript, List.of(this.keys.loaded(queue)), recoveryId);
            if (done != null && done == 1) {
                marked.add(queue);
            }
        }
        return marked;
    }

    /**
     * Take back the markers of a recovery whose reload failed, where they still hold its id: the queues' claims then
     * find them unmarked and ask for a recovery again.
     */
    public void abortRecovery(Collection<QueueId> queues, String recoveryId) {
        for (QueueId queue : queues) {
            this.redis.execute(this.abortRecoveryScript, List.of(this.keys.loaded(queue)), recoveryId);
        }
    }

}
