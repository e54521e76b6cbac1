package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * Replacing a task by its business key on H2 and an embedded Redis.
 */
class EmbeddedReplaceByKeyTests extends AbstractReplaceByKeyTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
