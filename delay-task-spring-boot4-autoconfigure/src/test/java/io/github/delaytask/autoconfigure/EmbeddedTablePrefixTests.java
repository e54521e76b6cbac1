package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * Table prefixes on H2 and an embedded Redis.
 */
class EmbeddedTablePrefixTests extends AbstractTablePrefixTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

}
