package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;

/**
 * The starter beside the plugins of a MyBatis-Plus shop, on an embedded Redis and an in-memory H2.
 */
class EmbeddedMybatisPlusPluginTests extends AbstractMybatisPlusPluginTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.embedded();
    }

    @Override
    protected boolean checksIllegalSql() {
        // its index check looks up the table under its name as written, and H2 keeps it in upper case
        return false;
    }

}
