package io.github.delaytask.cluster;

import io.github.delaytask.autoconfigure.AbstractDelayTaskIntegrationTests;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * The whole end-to-end suite on a master, a replica and three Sentinels of the test's own and an in-memory H2.
 */
@Tag("cluster")
class RedisSentinelDelayTaskIntegrationTests extends AbstractDelayTaskIntegrationTests {

    @Override
    protected TestBackend createBackend() {
        LocalRedisSentinel sentinel = LocalRedisSentinel.start();
        return TestBackend.h2(sentinel.properties(), sentinel::masters, sentinel);
    }

}
