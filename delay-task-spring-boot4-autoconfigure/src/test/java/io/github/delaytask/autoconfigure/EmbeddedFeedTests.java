package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * The feed on an embedded Redis and H2.
 */
class EmbeddedFeedTests extends AbstractFeedTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
