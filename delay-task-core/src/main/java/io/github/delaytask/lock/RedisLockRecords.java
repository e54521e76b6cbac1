package io.github.delaytask.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.Scripts;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.lang.Nullable;

/**
 * {@link LockRecords} in Redis: one hash per lock name beside the lock key, so that every instance sees the latest
 * run of the whole cluster. Public for wiring.
 */
public class RedisLockRecords implements LockRecords {

    private static final RedisScript<Long> FINISH = Scripts.load("lock-run-finish", Long.class);

    private final StringRedisTemplate redis;

    private final RedisKeys keys;

    public RedisLockRecords(StringRedisTemplate redis, RedisKeys keys) {
        this.redis = redis;
        this.keys = keys;
    }

    @Override
    public void runStarted(String name, LastRun run) {
        // every field is written, empty where unknown, so that nothing of the previous run is left behind
        this.redis.opsForHash().putAll(this.keys.lockRun(name), fields(run));
    }

    @Override
    public void runFinished(String name, LastRun run) {
        List<String> args = new ArrayList<>();
        args.add(run.runId());
        fields(run).forEach((field, value) -> {
            args.add(field);
            args.add(value);
        });
        this.redis.execute(FINISH, List.of(this.keys.lockRun(name)), args.toArray());
    }

    @Override
    public Optional<LastRun> lastRun(String name) {
        Map<Object, Object> hash = this.redis.opsForHash().entries(this.keys.lockRun(name));
        if (hash.isEmpty() || !hash.containsKey("runId")) {
            return Optional.empty();
        }
        Long finishedAt = millis(hash.get("finishedAt"));
        Long duration = millis(hash.get("durationMs"));
        return Optional.of(new LastRun(text(hash.get("runId")), text(hash.get("host")), millis(hash.get("pid")),
                Instant.ofEpochMilli(millis(hash.get("startedAt"))),
                (finishedAt != null) ? Instant.ofEpochMilli(finishedAt) : null,
                (duration != null) ? Duration.ofMillis(duration) : null,
                LastRun.Outcome.valueOf(text(hash.get("outcome"))), text(hash.get("error"))));
    }

    @Override
    public Optional<Duration> lockRemaining(String name) {
        Long millis = this.redis.getExpire(this.keys.lock(name), TimeUnit.MILLISECONDS);
        // -2: no such key, -1: a key without expiry, which a lock never is
        return (millis != null && millis > 0) ? Optional.of(Duration.ofMillis(millis)) : Optional.empty();
    }

    private static Map<String, String> fields(LastRun run) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("runId", run.runId());
        fields.put("host", run.host());
        fields.put("pid", Long.toString(run.pid()));
        fields.put("startedAt", Long.toString(run.startedAt().toEpochMilli()));
        fields.put("finishedAt", (run.finishedAt() != null) ? Long.toString(run.finishedAt().toEpochMilli()) : "");
        fields.put("durationMs", (run.duration() != null) ? Long.toString(run.duration().toMillis()) : "");
        fields.put("outcome", run.outcome().name());
        fields.put("error", (run.error() != null) ? run.error() : "");
        return fields;
    }

    @Nullable
    private static String text(@Nullable Object value) {
        return (value == null || value.toString().isEmpty()) ? null : value.toString();
    }

    @Nullable
    private static Long millis(@Nullable Object value) {
        String text = text(value);
        return (text != null) ? Long.valueOf(text) : null;
    }

}
