package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * Context carried from an add to its handler, on an embedded Redis and an in-memory H2.
 */
class EmbeddedContextPropagationTests extends AbstractContextPropagationTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
