package io.github.delaytask.autoconfigure;

import org.junit.jupiter.api.Tag;

/**
 * The cluster suite on the real Redis of 127.0.0.1, under a key prefix of its own.
 */
@Tag("real-services")
class RealRedisDistributedLockClusterTests extends AbstractDistributedLockClusterTests {

    @Override
    protected LockTestRedis createRedis() {
        return LockTestRedis.real();
    }

}
