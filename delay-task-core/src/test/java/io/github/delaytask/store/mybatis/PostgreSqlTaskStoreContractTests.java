package io.github.delaytask.store.mybatis;

import io.github.delaytask.store.AbstractTaskStoreContractTests;
import io.github.delaytask.store.TaskStore;
import org.junit.jupiter.api.Tag;

/** The store's contract on the real PostgreSQL of 127.0.0.1. */
@Tag("real-services")
class PostgreSqlTaskStoreContractTests extends AbstractTaskStoreContractTests {

    private ContractDatabase database;

    @Override
    protected TaskStore createStore() {
        this.database = ContractDatabase.postgreSql();
        return this.database.store();
    }

    @Override
    protected void dropStore() {
        if (this.database != null) {
            this.database.drop();
        }
    }

}
