package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * The starter without Redis on the real PostgreSQL of 127.0.0.1, in a database of its own.
 */
@Tag("real-services")
class PostgreSqlRedisFreeTests extends AbstractRedisFreeTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.postgreSql();
    }

}
