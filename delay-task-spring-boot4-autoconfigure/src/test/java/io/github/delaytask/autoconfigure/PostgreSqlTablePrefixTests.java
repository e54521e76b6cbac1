package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * Table prefixes on the real Redis and PostgreSQL of 127.0.0.1.
 */
@Tag("real-services")
class PostgreSqlTablePrefixTests extends AbstractTablePrefixTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.postgreSql();
    }

}
