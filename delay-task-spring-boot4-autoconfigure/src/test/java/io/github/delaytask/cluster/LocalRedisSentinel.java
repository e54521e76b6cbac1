package io.github.delaytask.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;

import static org.awaitility.Awaitility.await;

/**
 * A master, its replica and three Sentinels watching them with a quorum of two. A short
 * {@code down-after-milliseconds} makes the Sentinels promote the replica within a few seconds of the master's
 * death.
 */
final class LocalRedisSentinel extends LocalRedis {

    static final String MASTER_NAME = "delaytask";

    private static final int SENTINELS = 3;

    private RedisProcess master;

    private RedisProcess replica;

    private final List<RedisProcess> sentinels = new ArrayList<>();

    private LocalRedisSentinel() {
        super("sentinel");
    }

    /** Start the servers and wait until the Sentinels know each other and the replica; on failure kill them all. */
    static LocalRedisSentinel start() {
        LocalRedisSentinel sentinel = new LocalRedisSentinel();
        try {
            sentinel.create();
            return sentinel;
        }
        catch (RuntimeException | Error ex) {
            sentinel.close();
            throw ex;
        }
    }

    @Override
    List<String> properties() {
        String nodes = this.sentinels.stream()
            .map((sentinel) -> HOST + ":" + sentinel.port())
            .collect(Collectors.joining(","));
        return List.of("spring.data.redis.sentinel.master=" + MASTER_NAME, "spring.data.redis.sentinel.nodes=" + nodes);
    }

    @Override
    List<RedisProcess> dataNodes() {
        List<RedisProcess> nodes = new ArrayList<>();
        nodes.add(this.master);
        if (this.replica != null) {
            nodes.add(this.replica);
        }
        return nodes;
    }

    @Override
    void flushAll() {
        onNode(this.master.port(), (redis) -> redis.flushall());
    }

    /** Kill the master, whatever the hash tag: it holds everything. */
    @Override
    FailOver failOver(String hashTag) {
        if (this.replica == null) {
            throw new IllegalStateException("No replica left to take over");
        }
        RedisProcess killed = this.master;
        RedisProcess promoted = this.replica;
        Instant killedAt = kill(killed);
        this.master = promoted;
        this.replica = null;
        await("the Sentinels promoting " + promoted).atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(50))
            .ignoreExceptions()
            .until(() -> isMaster(promoted) && this.sentinels.stream().allMatch(this::pointsAtTheMaster));
        return new FailOver(killed, killedAt);
    }

    private boolean pointsAtTheMaster(RedisProcess sentinel) {
        InetSocketAddress master = (InetSocketAddress) onSentinel(sentinel.port(),
                (commands) -> commands.getMasterAddrByName(MASTER_NAME));
        return master.getPort() == this.master.port();
    }

    @Override
    List<RedisURI> masters() {
        return List.of(RedisURI.create(HOST, this.master.port()));
    }

    /** The master holds every hash tag. */
    @Override
    <T> T onMasterOf(String hashTag, Function<RedisCommands<String, String>, T> action) {
        return onNode(this.master.port(), action);
    }

    private void create() {
        int masterPort = freePort();
        this.master = start("master", masterPort, dataNodeArguments(masterPort, List.of()));
        int replicaPort = freePort();
        this.replica = start("replica", replicaPort,
                dataNodeArguments(replicaPort, List.of("--replicaof", HOST, Integer.toString(masterPort))));
        awaitUp(this.master);
        awaitUp(this.replica);
        for (int i = 0; i < SENTINELS; i++) {
            int port = freePort();
            String name = "sentinel-" + i;
            writeSentinelConfig(directoryOf(name), port, masterPort);
            this.sentinels.add(start(name, port, List.of("sentinel.conf", "--sentinel")));
        }
        this.sentinels.forEach(this::awaitUp);
        await("the Sentinels to know the replica and each other").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .ignoreExceptions()
            .until(() -> "up".equals(info(this.replica.port(), "replication", "master_link_status"))
                    && this.sentinels.stream().allMatch(this::seesTheWholeDeployment));
    }

    private boolean seesTheWholeDeployment(RedisProcess sentinel) {
        Map<String, String> master = onSentinel(sentinel.port(), (commands) -> commands.master(MASTER_NAME));
        return "master".equals(master.get("flags")) && "1".equals(master.get("num-slaves"))
                && Integer.toString(SENTINELS - 1).equals(master.get("num-other-sentinels"));
    }

    private boolean isMaster(RedisProcess node) {
        return "master".equals(info(node.port(), "replication", "role"));
    }

    private static List<String> dataNodeArguments(int port, List<String> more) {
        List<String> arguments = new ArrayList<>(List.of("--port", Integer.toString(port), "--bind", HOST, "--save",
                "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"));
        arguments.addAll(more);
        return arguments;
    }

    private static void writeSentinelConfig(Path directory, int port, int masterPort) {
        // the Sentinel rewrites this file as it learns, so each has its own
        String config = String.join("\n", "port " + port, "bind " + HOST,
                "sentinel monitor " + MASTER_NAME + " " + HOST + " " + masterPort + " 2",
                "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                "sentinel failover-timeout " + MASTER_NAME + " 10000", "");
        try {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve("sentinel.conf"), config);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

}
