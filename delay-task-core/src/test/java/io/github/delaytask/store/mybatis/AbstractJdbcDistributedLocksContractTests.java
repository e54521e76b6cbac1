package io.github.delaytask.store.mybatis;

import java.time.Duration;
import java.time.Instant;

import javax.sql.DataSource;

import io.github.delaytask.DistributedLocks;
import io.github.delaytask.lock.AbstractDistributedLocksContractTests;
import io.github.delaytask.lock.LastRun;
import io.github.delaytask.lock.LockRecords;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The locks' contract on the database's lock table, and what is the database's own: a lock taken inside a caller's
 * transaction is everybody's at once, whatever becomes of that transaction.
 */
abstract class AbstractJdbcDistributedLocksContractTests extends AbstractDistributedLocksContractTests {

    private ContractDatabase database;

    private DataSource dataSource;

    private TransactionTemplate transactions;

    /** A database of the test's own, with the schema users run. */
    protected abstract ContractDatabase createDatabase();

    @Override
    protected DistributedLocks createLocks() {
        this.database = createDatabase();
        this.dataSource = this.database.dataSource();
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
        return new JdbcDistributedLocks(new JdbcTemplate(this.dataSource), this.transactions, TableNames.NONE);
    }

    @Override
    protected LockRecords createRecords() {
        return new JdbcLockRecords(new JdbcTemplate(this.dataSource), this.transactions, TableNames.NONE);
    }

    @Override
    protected void dropLocks() {
        if (this.database != null) {
            this.database.drop();
        }
    }

    @Test
    void aLockTakenInACallersTransactionIsHeldForOthersBeforeItCommitsAndAfterItRollsBack() {
        this.transactions.executeWithoutResult((status) -> {
            assertThat(locks().tryLock("in-a-transaction", Duration.ofMinutes(5))).isPresent();
            assertThat(otherInstance().tryLock("in-a-transaction", Duration.ofMinutes(5))).isEmpty();
            status.setRollbackOnly();
        });
        assertThat(otherInstance().tryLock("in-a-transaction", Duration.ofMinutes(5))).isEmpty();
    }

    @Test
    void aSchemaWithTheTableLacksNothingAndOneWithoutItSaysWhichTableAndWhy() {
        JdbcDistributedLocks locks = (JdbcDistributedLocks) locks();
        assertThat(locks.missingSchema()).isEmpty();
        new JdbcTemplate(this.dataSource).execute("DROP TABLE taskinfo_lock");
        assertThat(locks.missingSchema()).singleElement()
            .asString()
            .contains("table taskinfo_lock", "version 9", "delay-task.lock.store");
    }

    @Test
    void underATablePrefixTheLocksUseThePrefixedTable() {
        TableNames prefixed = TableNames.withPrefix("billing_");
        this.database.runSchemaScript(prefixed);
        JdbcDistributedLocks billing = new JdbcDistributedLocks(new JdbcTemplate(this.dataSource), this.transactions,
                prefixed);
        assertThat(billing.tryLock("shared-name", Duration.ofMinutes(5))).isPresent();
        assertThat(locks().tryLock("shared-name", Duration.ofMinutes(5))).as("the plain table's lock").isPresent();
        assertThat(billing.tryLock("shared-name", Duration.ofMinutes(5))).isEmpty();
    }

    @Test
    void aLockOfANameThatRecordsNoRunLeavesNoRowOnceReleasedAndOneThatDoesKeepsItsRecord() {
        JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
        assertThat(locks().tryLock("order-42", Duration.ofMinutes(5)).orElseThrow().unlock()).isTrue();
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM taskinfo_lock WHERE name = 'order-42'", Integer.class))
            .as("rows of a name of SpEL, one per order").isZero();
        LockRecords records = createRecords();
        DistributedLocks.LockHandle held = locks().tryLock("nightly", Duration.ofMinutes(5)).orElseThrow();
        records.runStarted("nightly", new LastRun("run-1", "host-a", 1, Instant.ofEpochMilli(1_000), null, null,
                LastRun.Outcome.RUNNING, null));
        assertThat(held.unlock()).isTrue();
        assertThat(records.lastRun("nightly")).isPresent();
        assertThat(locks().tryLock("nightly", Duration.ofMinutes(5))).isPresent();
    }

    @Test
    void aRowDeletedByHandFreesTheLockForEveryInstance() {
        assertThat(locks().tryLock("stuck", Duration.ofMinutes(5))).isPresent();
        assertThat(locks().tryLock("stuck", Duration.ofMinutes(5))).isEmpty();
        new JdbcTemplate(this.dataSource).update("DELETE FROM taskinfo_lock WHERE name = 'stuck'");
        assertThat(locks().tryLock("stuck", Duration.ofMinutes(5))).isPresent();
    }

    /** Locks of another instance on the same table: nothing of this one's remembered. */
    private DistributedLocks otherInstance() {
        return new JdbcDistributedLocks(new JdbcTemplate(this.dataSource), this.transactions, TableNames.NONE);
    }

}
