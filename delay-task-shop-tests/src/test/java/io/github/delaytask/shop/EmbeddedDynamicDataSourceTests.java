package io.github.delaytask.shop;

/**
 * The shop's dynamic data sources, on two in-memory H2 databases and an embedded Redis.
 */
class EmbeddedDynamicDataSourceTests extends AbstractDynamicDataSourceTests {

    @Override
    ShopDatabases createDatabases() {
        return ShopDatabases.h2();
    }

    @Override
    boolean embeddedRedis() {
        return true;
    }

}
