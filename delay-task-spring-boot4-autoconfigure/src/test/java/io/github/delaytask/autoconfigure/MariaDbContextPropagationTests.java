package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * Context carried from an add to its handler, on the real Redis and MariaDB of 127.0.0.1.
 */
@Tag("real-services")
class MariaDbContextPropagationTests extends AbstractContextPropagationTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.mariaDb();
    }

}
