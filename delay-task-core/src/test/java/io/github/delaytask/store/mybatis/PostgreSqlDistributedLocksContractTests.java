package io.github.delaytask.store.mybatis;

import org.junit.jupiter.api.Tag;

/** The locks' contract on the database's lock table, on the real PostgreSQL of 127.0.0.1. */
@Tag("real-services")
class PostgreSqlDistributedLocksContractTests extends AbstractJdbcDistributedLocksContractTests {

    @Override
    protected ContractDatabase createDatabase() {
        return ContractDatabase.postgreSql();
    }

}
