package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;

/**
 * Recurring schedules on the real Redis and PostgreSQL of 127.0.0.1.
 */
@Tag("real-services")
class PostgreSqlScheduleTests extends AbstractScheduleTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.postgreSql();
    }

}
