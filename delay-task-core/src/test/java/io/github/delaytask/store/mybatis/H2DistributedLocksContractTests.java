package io.github.delaytask.store.mybatis;

/** The locks' contract on the database's lock table, on H2, the zero-setup default. */
class H2DistributedLocksContractTests extends AbstractJdbcDistributedLocksContractTests {

    @Override
    protected ContractDatabase createDatabase() {
        return ContractDatabase.h2();
    }

}
