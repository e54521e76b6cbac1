package io.github.delaytask.cluster;

import io.github.delaytask.autoconfigure.AbstractDelayTaskIntegrationTests;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * The whole end-to-end suite on a Redis Cluster of the test's own and an in-memory H2.
 */
@Tag("cluster")
class RedisClusterDelayTaskIntegrationTests extends AbstractDelayTaskIntegrationTests {

    @Override
    protected TestBackend createBackend() {
        LocalRedisCluster cluster = LocalRedisCluster.start();
        return TestBackend.h2(cluster.properties(), cluster::masters, cluster);
    }

}
