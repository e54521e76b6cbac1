package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * Recurring schedules on H2 and an embedded Redis.
 */
class EmbeddedScheduleTests extends AbstractScheduleTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
