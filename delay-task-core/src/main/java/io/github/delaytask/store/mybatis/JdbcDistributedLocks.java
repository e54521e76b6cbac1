package io.github.delaytask.store.mybatis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

import io.github.delaytask.DistributedLocks;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * {@link DistributedLocks} on a table of the task store's database ({@code taskinfo_lock}), as ShedLock's JDBC
 * provider keeps them: a lock is a row whose {@code lock_until} is still to come. It is taken by an update that
 * matches only a lapsed row, or by the insert of the first row of its name, with a random token, so that only its
 * holder releases or extends it. A race for a lock that ends in a conflict (a duplicate key, a serialization failure
 * or a deadlock) is lost, not thrown. Public for wiring.
 * <p>
 * Every time is the database's clock, so that instances whose clocks differ agree on when a lock lapses. Each
 * statement commits in a transaction of its own, so that a lock taken inside a caller's transaction is seen by the
 * other instances at once, and is not undone by the caller's rollback.
 */
public class JdbcDistributedLocks implements DistributedLocks {

    /** The longest lock name the table holds. */
    static final int MAX_NAME_LENGTH = 255;

    private final JdbcTemplate jdbc;

    private final TransactionTemplate transactions;

    private final TableNames tables;

    /** Read on first use rather than at start-up, so that a database down then stops nothing. */
    private final Supplier<Dialect> dialect;

    /**
     * @param jdbc on the task store's data source
     * @param transactions on the task store's data source, of which the locks take the manager
     * @param tables the names of the tables
     */
    public JdbcDistributedLocks(JdbcTemplate jdbc, TransactionTemplate transactions, TableNames tables) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactions.getTransactionManager());
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.tables = tables;
        this.dialect = SingletonSupplier.of(() -> Dialect.of(jdbc));
    }

    @Override
    public Optional<LockHandle> tryLock(String name, Duration lockAtMostFor) {
        Assert.hasText(name, "Lock name must not be empty");
        Assert.isTrue(name.length() <= MAX_NAME_LENGTH, () -> "Lock name '" + name + "' is longer than "
                + MAX_NAME_LENGTH + " characters, the most the database's lock table holds");
        Assert.isTrue(lockAtMostFor.toMillis() > 0, "lockAtMostFor must be positive");
        String token = UUID.randomUUID().toString();
        String now = now();
        try {
            boolean taken = Boolean.TRUE.equals(this.transactions.execute((status) -> {
                if (this.jdbc.update(sql("UPDATE taskinfo_lock SET lock_until = " + now + " + ?, locked_at = " + now
                        + ", locked_by = ? WHERE name = ? AND lock_until <= " + now), lockAtMostFor.toMillis(), token,
                        name) == 1) {
                    return true;
                }
                // no row, or one held: only the first lock of a name inserts; PostgreSQL, which would log each
                // duplicate as an error, is told to ignore it
                return this.jdbc.update(sql("INSERT INTO taskinfo_lock (name, lock_until, locked_at, locked_by) "
                        + "VALUES (?, " + now + " + ?, " + now + ", ?)" + this.dialect.get().ignoreDuplicate()), name,
                        lockAtMostFor.toMillis(), token) == 1;
            }));
            return taken ? Optional.of(new JdbcLockHandle(name, token)) : Optional.empty();
        }
        catch (DuplicateKeyException | ConcurrencyFailureException ex) {
            // another instance inserted the row, or took it, at the same time: it holds the lock
            return Optional.empty();
        }
    }

    /**
     * What the schema lacks for the locks, with how to add it; empty when nothing.
     * @throws org.springframework.dao.DataAccessException when the database cannot be asked
     */
    public List<String> missingSchema() {
        try {
            this.jdbc.queryForList(sql("SELECT name, lock_until, locked_at, locked_by, run_id, run_host, run_pid, "
                    + "run_started_at, run_finished_at, run_duration_ms, run_outcome, run_error FROM taskinfo_lock "
                    + "WHERE 1 = 0"));
            return List.of();
        }
        catch (BadSqlGrammarException ex) {
            return List.of("table " + this.tables.sql("taskinfo_lock") + " (the starter's schema script makes it, "
                    + "and version 9 of its migrations): the locks of @DistributedLock are kept there when they are "
                    + "kept in the database (delay-task.lock.store)");
        }
    }

    private String now() {
        return this.dialect.get().now();
    }

    private String sql(String statement) {
        return this.tables.sql(statement);
    }

    /**
     * What differs between databases.
     * @param now the database's clock, epoch ms, as an expression
     * @param ignoreDuplicate what makes an insert of a key already there insert nothing, without an error
     */
    private record Dialect(String now, String ignoreDuplicate) {

        static Dialect of(JdbcTemplate jdbc) {
            String now = "(" + DatabaseStatements.clockExpression(jdbc) + ")";
            return new Dialect(now, "postgresql".equals(DatabaseStatements.platform(jdbc))
                    ? " ON CONFLICT (name) DO NOTHING" : "");
        }

    }

    private final class JdbcLockHandle implements LockHandle {

        private final String name;

        private final String token;

        JdbcLockHandle(String name, String token) {
            this.name = name;
            this.token = token;
        }

        @Override
        public String name() {
            return this.name;
        }

        @Override
        public boolean unlock(Duration lockAtLeastFor) {
            String now = now();
            Integer released = JdbcDistributedLocks.this.transactions.execute((status) -> {
                // free at once, and no run recorded (a name of SpEL, one per order say): the row goes, so that such
                // names leave nothing behind
                int deleted = JdbcDistributedLocks.this.jdbc.update(sql("DELETE FROM taskinfo_lock WHERE name = ? "
                        + "AND locked_by = ? AND lock_until > " + now + " AND run_id IS NULL AND locked_at + ? <= "
                        + now), this.name, this.token, lockAtLeastFor.toMillis());
                if (deleted == 1) {
                    return 1;
                }
                // kept until lockAtLeastFor after it was taken, by the clock it was taken by; a lapsed lock is no
                // longer this holder's, even while no other instance has taken it. The token goes, which also
                // makes the row change when the time does not, for a driver that counts changed rows only
                return JdbcDistributedLocks.this.jdbc.update(sql("UPDATE taskinfo_lock SET lock_until = GREATEST("
                        + now + ", locked_at + ?), locked_by = '' WHERE name = ? AND locked_by = ? AND lock_until > "
                        + now), lockAtLeastFor.toMillis(), this.name, this.token);
            });
            return released != null && released == 1;
        }

        @Override
        public boolean extend(Duration lockAtMostFor) {
            Assert.isTrue(lockAtMostFor.toMillis() > 0, "lockAtMostFor must be positive");
            String now = now();
            Integer extended = JdbcDistributedLocks.this.transactions.execute((status) -> JdbcDistributedLocks.this.jdbc
                .update(sql("UPDATE taskinfo_lock SET lock_until = " + now + " + ? WHERE name = ? AND locked_by = ? "
                        + "AND lock_until > " + now), lockAtMostFor.toMillis(), this.name, this.token));
            return extended != null && extended == 1;
        }

    }

}
