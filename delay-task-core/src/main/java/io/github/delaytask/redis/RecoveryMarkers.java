package io.github.delaytask.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.delaytask.core.QueueId;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The loaded marker of each queue, which tells when Redis lost the queue's data: every claim reads it, and a recovery
 * that reloads the queue from the database sets it. Redis loses the marker with the rest of its data. Also the feed's
 * marker: the horizon up to which the feed brought every task into Redis, lost with Redis's data too. Public for
 * wiring.
 */
public class RecoveryMarkers {

    /** The start of a queue's marker once a recovery loaded it, before the Redis time the recovery began at. */
    private static final String LOADED = "loaded:";

    /** The start of the feed's marker once a pass reached a horizon, before the horizon, epoch ms. */
    private static final String HORIZON = "horizon:";

    /** The start of the feed's marker while a full pass runs, before the pass's id. */
    private static final String FULL_PASS = "pass:";

    private final StringRedisTemplate redis;

    private final RedisKeys keys;

    private final RedisScript<Long> beginRecoveryScript = Scripts.load("begin-recovery", Long.class);

    private final RedisScript<Long> markLoadedScript = Scripts.load("mark-loaded", Long.class);

    private final RedisScript<Long> abortRecoveryScript = Scripts.load("abort-recovery", Long.class);

    private final RedisScript<Long> advanceFeedScript = Scripts.load("advance-feed", Long.class);

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

    /**
     * The feed's marker as it is now: a pass that moves it on from there passes it to {@link #advanceFeed}.
     * @return the marker, or null when there is none: no pass reached a horizon since Redis last lost its data
     */
    public @Nullable String feedMarker() {
        return this.redis.opsForValue().get(this.keys.feed());
    }

    /**
     * The horizon a feed's marker holds, epoch ms; null for none: the marker is that of a full pass, which is under way
     * or died, or is missing.
     */
    public static @Nullable Long feedHorizon(@Nullable String marker) {
        FeedMark mark = feedMark(marker);
        return (mark != null) ? mark.horizon() : null;
    }

    /** What a feed's marker says; null for a marker that is missing or that of a full pass under way or dead. */
    public static @Nullable FeedMark feedMark(@Nullable String marker) {
        if (marker == null || !marker.startsWith(HORIZON)) {
            return null;
        }
        String[] parts = marker.substring(HORIZON.length()).split(":");
        if (parts.length != 3) {
            return null;
        }
        try {
            return new FeedMark(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }
        catch (NumberFormatException ex) {
            return null;
        }
    }

    /**
     * Begin a full pass of the feed, which reads the whole window: the marker takes the pass's id, which Redis loses
     * with the rest of its data should it lose them during the pass.
     * @return the marker the pass begins from, for {@link #advanceFeed}
     */
    public String beginFullFeed() {
        String marker = FULL_PASS + UUID.randomUUID();
        this.redis.opsForValue().set(this.keys.feed(), marker);
        return marker;
    }

    /**
     * Move the feed's marker to the horizon a pass reached, unless it changed since the pass began (Redis lost its data
     * meanwhile, or another pass moved it).
     * @param from the marker the pass began from
     * @param mark the horizon the pass reached, when it did, and the feed interval of the instance that ran it
     * @return whether the marker was moved
     */
    public boolean advanceFeed(String from, FeedMark mark) {
        Long moved = this.redis.execute(this.advanceFeedScript, List.of(this.keys.feed()), from,
                HORIZON + mark.horizon() + ":" + mark.writtenAt() + ":" + mark.intervalMillis());
        return moved != null && moved == 1;
    }

    /**
     * A feed's marker.
     * @param horizon the horizon a pass reached: every live task due up to it was sent to Redis, epoch ms by the due
     * clock
     * @param writtenAt when the pass ended, by the same clock: a marker that old says that no pass ran since, or that
     * Redis came back from a snapshot
     * @param intervalMillis the feed interval of the instance that wrote it, which the others judge its age by
     */
    public record FeedMark(long horizon, long writtenAt, long intervalMillis) {
    }

}
