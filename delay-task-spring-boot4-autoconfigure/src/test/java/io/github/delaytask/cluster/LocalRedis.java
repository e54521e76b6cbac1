package io.github.delaytask.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Stream;

import io.github.delaytask.testsupport.FreePort;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;

import static org.awaitility.Awaitility.await;

/**
 * Redis servers of a test's own, run from the machine's {@code redis-server} on free ports of 127.0.0.1, without
 * persistence, each in a directory under one temporary directory. {@link #close()} kills every process and removes
 * the directories; a shutdown hook does the same if the JVM exits first.
 */
abstract class LocalRedis implements AutoCloseable {

    static final String HOST = "127.0.0.1";

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(2);

    private final Path root;

    private final List<RedisProcess> processes = new CopyOnWriteArrayList<>();

    private final Set<Integer> ports = new HashSet<>();

    private final Thread shutdownHook = new Thread(this::killAll, "delay-task-test-redis-cleanup");

    private final RedisClient admin = RedisClient.create();

    LocalRedis(String name) {
        try {
            this.root = Files.createTempDirectory("delay-task-" + name + "-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        this.admin.setOptions(ClientOptions.builder().autoReconnect(false).build());
        Runtime.getRuntime().addShutdownHook(this.shutdownHook);
    }

    /** Spring properties pointing an application at these servers. */
    abstract List<String> properties();

    /** The servers holding data (masters and replicas, no Sentinels) that are still running. */
    abstract List<RedisProcess> dataNodes();

    /** {@code FLUSHALL} on every master: a stand-in for Redis losing everything. */
    abstract void flushAll();

    /**
     * {@code kill -9} the master holding the given hash tag, then wait until a replica took its place.
     * @param hashTag the part of a key between braces
     * @return what was killed and how long the promotion took
     */
    abstract FailOver failOver(String hashTag);

    /** The masters running now. */
    abstract List<RedisURI> masters();

    /** Run commands on the master now holding the hash tag. */
    abstract <T> T onMasterOf(String hashTag, Function<RedisCommands<String, String>, T> action);

    /** A port no other server of this deployment uses. */
    int freePort() {
        while (true) {
            int port = FreePort.find();
            if (this.ports.add(port)) {
                return port;
            }
        }
    }

    RedisProcess start(String name, int port, List<String> arguments) {
        RedisProcess process = RedisProcess.start(name, port, directoryOf(name), arguments);
        this.processes.add(process);
        return process;
    }

    /** The directory of the server of the given name. */
    Path directoryOf(String name) {
        return this.root.resolve(name);
    }

    /** Wait until the server answers PING. */
    void awaitUp(RedisProcess process) {
        await("start of " + process).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
            .ignoreExceptions()
            .until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException(process + " exited:\n" + process.logTail());
                }
                return "PONG".equals(onNode(process.port(), RedisCommands::ping));
            });
    }

    <T> T onNode(int port, Function<RedisCommands<String, String>, T> action) {
        RedisURI uri = RedisURI.builder().withHost(HOST).withPort(port).withTimeout(ADMIN_TIMEOUT).build();
        try (StatefulRedisConnection<String, String> connection = this.admin.connect(uri)) {
            return action.apply(connection.sync());
        }
    }

    <T> T onSentinel(int port, Function<RedisSentinelCommands<String, String>, T> action) {
        RedisURI uri = RedisURI.builder().withHost(HOST).withPort(port).withTimeout(ADMIN_TIMEOUT).build();
        try (StatefulRedisSentinelConnection<String, String> connection = this.admin.connectSentinel(uri)) {
            return action.apply(connection.sync());
        }
    }

    /** One field of {@code INFO <section>} of a server. */
    String info(int port, String section, String field) {
        return parseInfo(onNode(port, (redis) -> redis.info(section))).get(field);
    }

    /**
     * Calls per command and errors per error code since the servers started, summed over the running data nodes:
     * {@code cmdstat_<command>} and {@code errorstat_<code>} to a count.
     */
    TreeMap<String, Long> commandAndErrorCounts() {
        TreeMap<String, Long> counts = new TreeMap<>();
        for (RedisProcess node : dataNodes()) {
            commandAndErrorCounts(node).forEach((name, count) -> counts.merge(name, count, Long::sum));
        }
        return counts;
    }

    /** {@code EVAL} and {@code EVALSHA} calls per server. */
    Map<RedisProcess, Long> scriptCalls(Set<RedisProcess> nodes) {
        Map<RedisProcess, Long> calls = new LinkedHashMap<>();
        for (RedisProcess node : nodes) {
            Map<String, Long> counts = commandAndErrorCounts(node);
            calls.put(node, counts.getOrDefault("cmdstat_eval", 0L) + counts.getOrDefault("cmdstat_evalsha", 0L));
        }
        return calls;
    }

    private Map<String, Long> commandAndErrorCounts(RedisProcess node) {
        Map<String, Long> counts = new LinkedHashMap<>();
        String info = onNode(node.port(), (redis) -> redis.info("commandstats") + redis.info("errorstats"));
        parseInfo(info).forEach((name, value) -> {
            // cmdstat_get:calls=1,usec=..., errorstat_CROSSSLOT:count=1
            counts.put(name, Long.parseLong(value.substring(value.indexOf('=') + 1).split(",")[0]));
        });
        return counts;
    }

    /**
     * {@code kill -9} a server.
     * @return when
     */
    Instant kill(RedisProcess process) {
        Instant killedAt = Instant.now();
        process.kill();
        this.processes.remove(process);
        return killedAt;
    }

    @Override
    public void close() {
        try {
            killAll();
            this.admin.shutdown();
            deleteRecursively(this.root);
        }
        finally {
            try {
                Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
            }
            catch (IllegalStateException ex) {
                // the JVM is shutting down already
            }
        }
    }

    private void killAll() {
        List<RedisProcess> running = new ArrayList<>(this.processes);
        running.forEach(RedisProcess::kill);
        this.processes.removeAll(running);
    }

    private static Map<String, String> parseInfo(String info) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    private static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A master killed and the replica that took its place.
     * @param killed the master's process, now dead
     * @param killedAt when it was killed
     * @param promotion time from the kill until the replica served as master, as the servers see it
     */
    record FailOver(RedisProcess killed, Instant killedAt, Duration promotion) {

        FailOver(RedisProcess killed, Instant killedAt) {
            this(killed, killedAt, Duration.between(killedAt, Instant.now()));
        }

    }

}
