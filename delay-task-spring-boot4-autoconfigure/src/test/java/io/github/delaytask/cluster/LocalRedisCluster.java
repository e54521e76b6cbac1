package io.github.delaytask.cluster;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.delaytask.testsupport.Commands;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of three masters, each with one replica, made with {@code redis-cli --cluster create}. A short
 * {@code cluster-node-timeout} makes a replica take over within a few seconds of its master's death.
 */
final class LocalRedisCluster extends LocalRedis {

    private static final int MASTERS = 3;

    private static final String NODE_TIMEOUT_MILLIS = "1000";

    /** Nodes still running. */
    private final List<RedisProcess> nodes = new CopyOnWriteArrayList<>();

    private LocalRedisCluster() {
        super("cluster");
    }

    /** Start six nodes and make them a cluster; everything started is killed again if that fails. */
    static LocalRedisCluster start() {
        LocalRedisCluster cluster = new LocalRedisCluster();
        try {
            cluster.create();
            return cluster;
        }
        catch (RuntimeException | Error ex) {
            cluster.close();
            throw ex;
        }
    }

    @Override
    List<String> properties() {
        String nodes = this.nodes.stream().map((node) -> HOST + ":" + node.port()).collect(Collectors.joining(","));
        return List.of("spring.data.redis.cluster.nodes=" + nodes);
    }

    @Override
    List<RedisProcess> dataNodes() {
        return List.copyOf(this.nodes);
    }

    @Override
    void flushAll() {
        for (RedisProcess node : this.nodes) {
            if ("master".equals(info(node.port(), "replication", "role"))) {
                onNode(node.port(), (redis) -> redis.flushall());
            }
        }
    }

    @Override
    FailOver failOver(String hashTag) {
        int slot = SlotHash.getSlot(hashTag);
        RedisProcess master = masterOf(slot);
        Instant killedAt = kill(master);
        this.nodes.remove(master);
        await("a replica of " + master + " taking its place").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(50))
            .ignoreExceptions()
            .until(() -> masterOf(slot) != master && isHealthy());
        return new FailOver(master, killedAt);
    }

    @Override
    List<RedisURI> masters() {
        return this.nodes.stream()
            .filter((node) -> "master".equals(info(node.port(), "replication", "role")))
            .map((node) -> RedisURI.create(HOST, node.port()))
            .toList();
    }

    @Override
    <T> T onMasterOf(String hashTag, Function<RedisCommands<String, String>, T> action) {
        return onNode(masterOf(SlotHash.getSlot(hashTag)).port(), action);
    }

    /** The running master serving the slot, as every running node sees it. */
    RedisProcess masterOf(int slot) {
        Set<Integer> owners = new HashSet<>();
        for (RedisProcess node : this.nodes) {
            Partitions view = viewOf(node);
            RedisClusterNode owner = view.getPartitionBySlot(slot);
            if (owner == null || owner.is(NodeFlag.FAIL) || !owner.is(NodeFlag.UPSTREAM)) {
                throw new IllegalStateException("Node " + node + " sees no master for slot " + slot);
            }
            owners.add(owner.getUri().getPort());
        }
        if (owners.size() != 1) {
            throw new IllegalStateException("The nodes disagree about the master of slot " + slot + ": " + owners);
        }
        int port = owners.iterator().next();
        return this.nodes.stream()
            .filter((node) -> node.port() == port)
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("The master of slot " + slot + " is not running"));
    }

    private void create() {
        for (int i = 0; i < MASTERS * 2; i++) {
            int port = freePort();
            this.nodes.add(start("node-" + i, port, List.of("--port", Integer.toString(port), "--cluster-port",
                    Integer.toString(freePort()), "--bind", HOST, "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", NODE_TIMEOUT_MILLIS,
                    // a replica takes over however long it was cut off from its master
                    "--cluster-replica-validity-factor", "0", "--save", "", "--appendonly", "no",
                    "--repl-diskless-sync-delay", "0")));
        }
        this.nodes.forEach(this::awaitUp);
        List<String> create = new ArrayList<>(List.of("--cluster", "create"));
        this.nodes.forEach((node) -> create.add(HOST + ":" + node.port()));
        create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        redisCli(create);
        await("the cluster to form").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .ignoreExceptions()
            .until(this::isHealthy);
    }

    /** Every running node says the cluster is ok, and each master with slots has a replica in sync. */
    private boolean isHealthy() {
        for (RedisProcess node : this.nodes) {
            if (!onNode(node.port(), (redis) -> redis.clusterInfo()).contains("cluster_state:ok")) {
                return false;
            }
        }
        Partitions view = viewOf(this.nodes.get(0));
        long masters = view.stream()
            .filter((node) -> node.is(NodeFlag.UPSTREAM) && !node.is(NodeFlag.FAIL) && !node.getSlots().isEmpty())
            .count();
        long replicasInSync = this.nodes.stream()
            .filter((node) -> "slave".equals(info(node.port(), "replication", "role")))
            .filter((node) -> "up".equals(info(node.port(), "replication", "master_link_status")))
            .count();
        return masters == MASTERS && replicasInSync == this.nodes.size() - MASTERS;
    }

    /** The cluster as one node sees it. */
    private Partitions viewOf(RedisProcess node) {
        String nodes = onNode(node.port(), (redis) -> redis.clusterNodes());
        return ClusterPartitionParser.parse(nodes);
    }

    private static void redisCli(List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add("redis-cli");
        command.addAll(arguments);
        Commands.run(command, Duration.ofSeconds(30));
    }

}
