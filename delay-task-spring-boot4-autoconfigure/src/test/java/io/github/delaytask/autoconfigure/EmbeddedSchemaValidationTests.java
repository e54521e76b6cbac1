package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * The start-up check of a schema the starter did not create, on an embedded Redis and an in-memory H2.
 */
class EmbeddedSchemaValidationTests extends AbstractSchemaValidationTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
