package io.github.delaytask.autoconfigure;

/**
 * The cluster suite on an embedded Redis: runs on any machine with a JDK.
 */
class EmbeddedDistributedLockClusterTests extends AbstractDistributedLockClusterTests {

    @Override
    protected LockTestRedis createRedis() {
        return LockTestRedis.embedded();
    }

}
