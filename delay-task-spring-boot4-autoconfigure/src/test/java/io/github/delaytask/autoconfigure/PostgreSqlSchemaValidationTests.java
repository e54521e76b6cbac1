package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * The start-up check of a schema the starter did not create, on the real Redis and PostgreSQL of 127.0.0.1.
 */
@Tag("real-services")
class PostgreSqlSchemaValidationTests extends AbstractSchemaValidationTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.postgreSql();
    }

}
