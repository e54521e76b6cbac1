package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * How outcomes are recorded, on the real Redis and MariaDB of 127.0.0.1.
 */
@Tag("real-services")
class MariaDbTaskOutcomeTests extends AbstractTaskOutcomeTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.mariaDb();
    }

}
