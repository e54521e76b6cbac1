package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * The starter without Redis on H2; the embedded Redis beside it only shows that a Redis turned off is left alone.
 */
class EmbeddedRedisFreeTests extends AbstractRedisFreeTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
