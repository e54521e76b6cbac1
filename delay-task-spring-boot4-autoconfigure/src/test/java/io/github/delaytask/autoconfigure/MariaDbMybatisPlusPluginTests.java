package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * The starter beside the plugins of a MyBatis-Plus shop, on the real Redis and MariaDB of 127.0.0.1.
 */
@Tag("real-services")
class MariaDbMybatisPlusPluginTests extends AbstractMybatisPlusPluginTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.mariaDb();
    }

}
