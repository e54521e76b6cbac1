package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * How outcomes are recorded, on an embedded Redis and an in-memory H2.
 */
class EmbeddedTaskOutcomeTests extends AbstractTaskOutcomeTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
