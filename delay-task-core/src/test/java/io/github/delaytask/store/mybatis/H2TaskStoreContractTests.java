package io.github.delaytask.store.mybatis;

import io.github.delaytask.store.AbstractTaskStoreContractTests;
import io.github.delaytask.store.TaskStore;

/** The store's contract on embedded H2. */
class H2TaskStoreContractTests extends AbstractTaskStoreContractTests {

    private ContractDatabase database;

    @Override
    protected TaskStore createStore() {
        this.database = ContractDatabase.h2();
        return this.database.store();
    }

    @Override
    protected void dropStore() {
        if (this.database != null) {
            this.database.drop();
        }
    }

}
