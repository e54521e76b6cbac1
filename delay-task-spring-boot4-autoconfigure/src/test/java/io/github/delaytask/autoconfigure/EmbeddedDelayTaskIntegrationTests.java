package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * The end-to-end suite on an embedded Redis and an in-memory H2: runs on any machine with a JDK.
 */
class EmbeddedDelayTaskIntegrationTests extends AbstractDelayTaskIntegrationTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
