package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * Replacing a task by its business key on the real Redis and PostgreSQL of 127.0.0.1.
 */
@Tag("real-services")
class PostgreSqlReplaceByKeyTests extends AbstractReplaceByKeyTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.postgreSql();
    }

}
