package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * The observations of adds and handler runs, on the real Redis and PostgreSQL of 127.0.0.1.
 */
@Tag("real-services")
class PostgreSqlObservationTests extends AbstractObservationTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.postgreSql();
    }

}
