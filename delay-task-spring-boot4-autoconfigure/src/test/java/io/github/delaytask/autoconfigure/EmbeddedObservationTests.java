package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * The observations of adds and handler runs, on an embedded Redis and an in-memory H2.
 */
class EmbeddedObservationTests extends AbstractObservationTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
