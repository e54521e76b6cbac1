package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * The feed on the real Redis and PostgreSQL of 127.0.0.1, in a database of its own.
 */
@Tag("real-services")
class PostgreSqlFeedTests extends AbstractFeedTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.postgreSql();
    }

}
