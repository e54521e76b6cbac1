package io.github.delaytask.store.mybatis;

import org.junit.jupiter.api.Tag;

/** The locks' contract on the database's lock table, on the real MariaDB of 127.0.0.1, for MySQL and MariaDB. */
@Tag("real-services")
class MariaDbDistributedLocksContractTests extends AbstractJdbcDistributedLocksContractTests {

    @Override
    protected ContractDatabase createDatabase() {
        return ContractDatabase.mariaDb();
    }

}
