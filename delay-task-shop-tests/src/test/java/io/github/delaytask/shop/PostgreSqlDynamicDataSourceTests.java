package io.github.delaytask.shop;

import org.junit.jupiter.api.Tag;

/**
 * The shop's dynamic data sources, on two schemas of the real PostgreSQL of 127.0.0.1 and its real Redis.
 */
@Tag("real-services")
class PostgreSqlDynamicDataSourceTests extends AbstractDynamicDataSourceTests {

    @Override
    ShopDatabases createDatabases() {
        return ShopDatabases.postgreSql();
    }

    @Override
    boolean embeddedRedis() {
        return false;
    }

}
