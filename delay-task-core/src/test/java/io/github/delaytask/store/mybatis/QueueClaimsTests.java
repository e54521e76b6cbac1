package io.github.delaytask.store.mybatis;

import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.InvalidIsolationLevelException;
import org.springframework.transaction.TransactionDefinition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Claims straight from the database under a transaction manager that takes no isolation level, as JTA's: they run at
 * the data source's own isolation rather than fail.
 */
class QueueClaimsTests {

    private static final long NOW = 1_800_000_000_000L;

    private static final QueueId QUEUE = new QueueId(5, 0);

    private final ContractDatabase database = ContractDatabase.h2();

    @AfterEach
    void drop() {
        this.database.drop();
    }

    @Test
    void aTransactionManagerThatTakesNoIsolationLevelStillHasDueTasksClaimedFromTheDatabase() {
        TaskStore store = this.database.store(NoIsolationLevels::new);
        long first = store.insert(new NewTask(null, QUEUE.taskType(), QUEUE.priority(), NOW - 1, null, null)).taskId();
        long second = store.insert(new NewTask(null, QUEUE.taskType(), QUEUE.priority(), NOW - 1, null, null))
            .taskId();
        assertThat(store.claimDueInQueues(Map.of(QUEUE, 1), NOW, NOW + 1000)).extracting(StoredTask::taskId)
            .containsExactly(first);
        assertThat(store.claimDueInQueues(Map.of(QUEUE, 1), NOW, NOW + 1000)).as("the next claim")
            .extracting(StoredTask::taskId)
            .containsExactly(second);
        assertThat(store.claimDueInQueues(Map.of(QUEUE, 1), NOW, NOW + 1000)).isEqualTo(List.of());
    }

    /** Refuses any isolation level but the default, as JTA's manager does unless told otherwise. */
    private static final class NoIsolationLevels extends DataSourceTransactionManager {

        NoIsolationLevels(DataSource dataSource) {
            super(dataSource);
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            if (definition.getIsolationLevel() != TransactionDefinition.ISOLATION_DEFAULT) {
                throw new InvalidIsolationLevelException("This transaction manager takes no isolation level");
            }
            super.doBegin(transaction, definition);
        }

    }

}
