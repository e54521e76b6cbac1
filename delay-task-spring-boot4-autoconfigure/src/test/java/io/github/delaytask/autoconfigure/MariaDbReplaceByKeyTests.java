package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * Replacing a task by its business key on the real Redis and MariaDB of 127.0.0.1.
 */
@Tag("real-services")
class MariaDbReplaceByKeyTests extends AbstractReplaceByKeyTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.mariaDb();
    }

}
