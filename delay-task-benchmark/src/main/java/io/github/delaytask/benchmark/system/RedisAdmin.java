package io.github.delaytask.benchmark.system;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The benchmark's own connection to the shared Redis: server memory, the memory of one system's keys, and removing
 * them. It lists keys with {@code SCAN}, which the systems themselves never need.
 */
public final class RedisAdmin implements AutoCloseable {

    private final String host;

    private final int port;

    private final RedisClient client;

    private final StatefulRedisConnection<String, String> connection;

    public RedisAdmin(String host, int port) {
        this.host = host;
        this.port = port;
        this.client = RedisClient.create(RedisURI.create(host, port));
        this.connection = this.client.connect();
    }

    public String host() {
        return this.host;
    }

    public int port() {
        return this.port;
    }

    /** The server's version. */
    public String version() {
        return info("server", "redis_version");
    }

    /** {@code used_memory} of {@code INFO memory}: the whole server, whoever else uses it. */
    public synchronized long usedMemory() {
        return Long.parseLong(info("memory", "used_memory"));
    }

    /**
     * {@code calls} of each command in {@code INFO commandstats}, by name (such as {@code evalsha}): commands that
     * scripts run are counted too.
     */
    public synchronized Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : this.connection.sync().info("commandstats").split("\r?\n")) {
            // cmdstat_get:calls=21,usec=175,usec_per_call=8.33,rejected_calls=0,failed_calls=0
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String count = line.substring(line.indexOf("calls=") + "calls=".length());
                calls.put(name, Long.parseLong(count.substring(0, count.indexOf(','))));
            }
        }
        return calls;
    }

    /** The sum of {@code MEMORY USAGE} over the keys matching a pattern. */
    public synchronized long keyBytes(String pattern) {
        RedisCommands<String, String> redis = this.connection.sync();
        long bytes = 0;
        for (String key : keys(pattern)) {
            Long usage = redis.memoryUsage(key);
            bytes += (usage != null) ? usage : 0;
        }
        return bytes;
    }

    /** Remove the keys matching a pattern. */
    public synchronized void delete(String pattern) {
        delete(pattern, (key) -> false);
    }

    /** Remove the keys matching a pattern, but those to keep. */
    public synchronized void delete(String pattern, Predicate<String> keep) {
        List<String> keys = keys(pattern);
        keys.removeIf(keep);
        for (int from = 0; from < keys.size(); from += 1000) {
            List<String> some = keys.subList(from, Math.min(keys.size(), from + 1000));
            this.connection.sync().unlink(some.toArray(new String[0]));
        }
    }

    /** As {@link #delete(String)}, for a shutdown hook: failures are printed, not thrown. */
    public void deleteQuietly(String pattern) {
        try {
            delete(pattern);
        }
        catch (RuntimeException ex) {
            System.err.println("Could not remove the Redis keys " + pattern + ": " + ex);
        }
    }

    private List<String> keys(String pattern) {
        RedisCommands<String, String> redis = this.connection.sync();
        List<String> keys = new ArrayList<>();
        ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
        KeyScanCursor<String> cursor = redis.scan(ScanCursor.INITIAL, args);
        keys.addAll(cursor.getKeys());
        while (!cursor.isFinished()) {
            cursor = redis.scan(cursor, args);
            keys.addAll(cursor.getKeys());
        }
        return keys;
    }

    private synchronized String info(String section, String field) {
        for (String line : this.connection.sync().info(section).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).strip();
            }
        }
        throw new IllegalStateException("Redis INFO " + section + " has no " + field);
    }

    @Override
    public void close() {
        this.connection.close();
        this.client.shutdown();
    }

}
