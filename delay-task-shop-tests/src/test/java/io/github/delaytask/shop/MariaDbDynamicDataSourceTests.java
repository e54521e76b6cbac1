package io.github.delaytask.shop;

import org.junit.jupiter.api.Tag;

/**
 * The shop's dynamic data sources, on two databases of the real MariaDB of 127.0.0.1 and its real Redis.
 */
@Tag("real-services")
class MariaDbDynamicDataSourceTests extends AbstractDynamicDataSourceTests {

    @Override
    ShopDatabases createDatabases() {
        return ShopDatabases.mariaDb();
    }

    @Override
    boolean embeddedRedis() {
        return false;
    }

}
