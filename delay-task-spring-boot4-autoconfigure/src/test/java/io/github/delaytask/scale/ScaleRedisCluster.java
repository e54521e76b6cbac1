package io.github.delaytask.scale;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.delaytask.testsupport.Commands;
import io.github.delaytask.testsupport.FreePort;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of three masters and three replicas on free ports of 127.0.0.1, run from the machine's
 * {@code redis-server} and {@code redis-cli} without persistence; {@link #close()} kills the servers and removes
 * their directory.
 * <p>
 * A trimmed copy of {@code cluster.LocalRedisCluster}, which is package-private: this one only starts, reads
 * statistics and stops, and never fails over.
 */
final class ScaleRedisCluster implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    private static final int NODES = 6;

    private final Path root;

    private final List<Process> processes = new ArrayList<>();

    /** Client ports of the nodes. */
    private final List<Integer> ports = new ArrayList<>();

    /** Client and cluster bus ports handed out. */
    private final Set<Integer> usedPorts = new HashSet<>();

    private final Thread shutdownHook = new Thread(this::killAll, "delay-task-scale-redis-cleanup");

    private final RedisClient admin = RedisClient.create();

    private ScaleRedisCluster() {
        try {
            this.root = Files.createTempDirectory("delay-task-scale-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        this.admin.setOptions(ClientOptions.builder().autoReconnect(false).build());
        Runtime.getRuntime().addShutdownHook(this.shutdownHook);
    }

    /** Start six nodes and make them a cluster; everything started is killed again if that fails. */
    static ScaleRedisCluster start() {
        ScaleRedisCluster cluster = new ScaleRedisCluster();
        try {
            cluster.create();
            return cluster;
        }
        catch (RuntimeException | Error ex) {
            cluster.close();
            throw ex;
        }
    }

    /** {@code spring.data.redis.cluster.nodes} reaching every node. */
    String nodesProperty() {
        return this.ports.stream().map((port) -> HOST + ":" + port).collect(Collectors.joining(","));
    }

    /** Ports of the masters, lowest first. */
    List<Integer> masterPorts() {
        return view().stream()
            .filter((node) -> node.is(NodeFlag.UPSTREAM) && !node.getSlots().isEmpty())
            .map((node) -> node.getUri().getPort())
            .sorted()
            .toList();
    }

    /** Port of the master serving a key. */
    int masterPortOf(String key) {
        return view().getPartitionBySlot(SlotHash.getSlot(key)).getUri().getPort();
    }

    /** Calls per command since the server started ({@code cmdstat_evalsha} to a count), of one server. */
    Map<String, Long> commandCalls(int port) {
        Map<String, Long> calls = new TreeMap<>();
        String info = onNode(port, (redis) -> redis.info("commandstats"));
        for (String line : info.split("\r?\n")) {
            // cmdstat_evalsha:calls=12,usec=...
            if (line.startsWith("cmdstat_")) {
                int colon = line.indexOf(':');
                String count = line.substring(line.indexOf("calls=") + "calls=".length()).split(",")[0];
                calls.put(line.substring("cmdstat_".length(), colon), Long.parseLong(count));
            }
        }
        return calls;
    }

    /** {@code used_cpu_sys + used_cpu_user} of one server, in seconds. */
    double cpuSeconds(int port) {
        Map<String, Double> cpu = new LinkedHashMap<>();
        for (String line : onNode(port, (redis) -> redis.info("cpu")).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (line.startsWith("used_cpu_") && colon > 0 && !line.contains("children")
                    && !line.contains("main_thread")) {
                cpu.put(line.substring(0, colon), Double.parseDouble(line.substring(colon + 1).trim()));
            }
        }
        return cpu.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    @Override
    public void close() {
        killAll();
        this.admin.shutdown();
        try (Stream<Path> paths = Files.walk(this.root)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
        catch (IOException ex) {
            // the directory is under the temporary directory: leaving it is harmless
        }
        try {
            Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
        }
        catch (IllegalStateException ex) {
            // the JVM is shutting down already
        }
    }

    private void killAll() {
        for (Process process : this.processes) {
            process.destroyForcibly();
        }
        for (Process process : this.processes) {
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void create() {
        for (int i = 0; i < NODES; i++) {
            int port = freePort();
            this.ports.add(port);
            startNode("node-" + i, List.of("--port", Integer.toString(port), "--cluster-port",
                    Integer.toString(freePort()), "--bind", HOST, "--cluster-enabled", "yes", "--cluster-config-file",
                    "nodes.conf", "--cluster-node-timeout", "1000", "--save", "", "--appendonly", "no"));
        }
        for (int port : this.ports) {
            await("redis-server on port " + port).atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> "PONG".equals(onNode(port, RedisCommands::ping)));
        }
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        this.ports.forEach((port) -> create.add(HOST + ":" + port));
        create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        run(create);
        await("the cluster to form").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .ignoreExceptions()
            .until(this::isHealthy);
    }

    private boolean isHealthy() {
        for (int port : this.ports) {
            if (!onNode(port, RedisCommands::clusterInfo).contains("cluster_state:ok")) {
                return false;
            }
        }
        long replicasInSync = this.ports.stream()
            .filter((port) -> onNode(port, (redis) -> redis.info("replication")).contains("master_link_status:up"))
            .count();
        return masterPorts().size() == NODES / 2 && replicasInSync == NODES / 2;
    }

    private Partitions view() {
        String nodes = onNode(this.ports.get(0), RedisCommands::clusterNodes);
        return ClusterPartitionParser.parse(nodes);
    }

    private <T> T onNode(int port, Function<RedisCommands<String, String>, T> action) {
        RedisURI uri = RedisURI.builder().withHost(HOST).withPort(port).withTimeout(Duration.ofSeconds(5)).build();
        try (StatefulRedisConnection<String, String> connection = this.admin.connect(uri)) {
            return action.apply(connection.sync());
        }
    }

    private int freePort() {
        while (true) {
            int port = FreePort.find();
            if (this.usedPorts.add(port)) {
                return port;
            }
        }
    }

    private void startNode(String name, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add("redis-server");
        command.addAll(arguments);
        try {
            Path directory = Files.createDirectories(this.root.resolve(name));
            this.processes.add(new ProcessBuilder(command).directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("redis.log").toFile())
                .start());
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start redis-server; the tests tagged 'scale' need Redis "
                    + "installed with redis-server and redis-cli on the PATH", ex);
        }
    }

    private static void run(List<String> command) {
        Commands.run(command, Duration.ofSeconds(30));
    }

}
