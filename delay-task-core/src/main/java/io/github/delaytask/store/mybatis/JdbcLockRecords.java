package io.github.delaytask.store.mybatis;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.delaytask.lock.LastRun;
import io.github.delaytask.lock.LockRecords;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.function.SingletonSupplier;

/**
 * {@link LockRecords} in the row of each lock of {@link JdbcDistributedLocks}, so that every instance sees the
 * latest run of the whole cluster. Public for wiring.
 */
public class JdbcLockRecords implements LockRecords {

    private static final String RUN_COLUMNS = "run_id = ?, run_host = ?, run_pid = ?, run_started_at = ?, "
            + "run_finished_at = ?, run_duration_ms = ?, run_outcome = ?, run_error = ?";

    private final JdbcTemplate jdbc;

    private final TransactionTemplate transactions;

    private final TableNames tables;

    private final Supplier<String> now;

    /**
     * @param jdbc on the task store's data source
     * @param transactions on the task store's data source, of which the records take the manager
     * @param tables the names of the tables
     */
    public JdbcLockRecords(JdbcTemplate jdbc, TransactionTemplate transactions, TableNames tables) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactions.getTransactionManager());
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.tables = tables;
        this.now = SingletonSupplier.of(() -> "(" + DatabaseStatements.clockExpression(jdbc) + ")");
    }

    @Override
    public void runStarted(String name, LastRun run) {
        // every field is written, NULL where unknown, so that nothing of the previous run is left behind
        Object[] fields = fields(run);
        if (update("UPDATE taskinfo_lock SET " + RUN_COLUMNS + " WHERE name = ?", with(fields, name)) == 1) {
            return;
        }
        try {
            // no row for the lock (records beside locks kept elsewhere, or a row deleted meanwhile): one of a free
            // lock, holding the record
            update("INSERT INTO taskinfo_lock (run_id, run_host, run_pid, run_started_at, run_finished_at, "
                    + "run_duration_ms, run_outcome, run_error, name, lock_until, locked_at, locked_by) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, '')", with(fields, name));
        }
        catch (DuplicateKeyException ex) {
            update("UPDATE taskinfo_lock SET " + RUN_COLUMNS + " WHERE name = ?", with(fields, name));
        }
    }

    @Override
    public void runFinished(String name, LastRun run) {
        update("UPDATE taskinfo_lock SET " + RUN_COLUMNS + " WHERE name = ? AND run_id = ?",
                with(fields(run), name, run.runId()));
    }

    @Override
    public Optional<LastRun> lastRun(String name) {
        List<LastRun> runs = this.jdbc.query(sql("SELECT run_id, run_host, run_pid, run_started_at, run_finished_at, "
                + "run_duration_ms, run_outcome, run_error FROM taskinfo_lock WHERE name = ? AND run_id IS NOT NULL"),
                JdbcLockRecords::run, name);
        return runs.stream().findFirst();
    }

    @Override
    public Optional<Duration> lockRemaining(String name) {
        // in a transaction of its own: the clock of PostgreSQL and H2 is the time their transaction began, which a
        // caller's may have long before
        List<Long> remaining = this.transactions.execute((status) -> this.jdbc.queryForList(
                sql("SELECT lock_until - " + this.now.get() + " FROM taskinfo_lock WHERE name = ?"), Long.class, name));
        return (remaining != null) ? remaining.stream()
            .filter((millis) -> millis != null && millis > 0)
            .map(Duration::ofMillis)
            .findFirst() : Optional.empty();
    }

    private int update(String statement, Object[] arguments) {
        Integer rows = this.transactions.execute((status) -> this.jdbc.update(sql(statement), arguments));
        return (rows != null) ? rows : 0;
    }

    private String sql(String statement) {
        return this.tables.sql(statement);
    }

    private static Object[] with(Object[] fields, Object... more) {
        Object[] all = Arrays.copyOf(fields, fields.length + more.length);
        System.arraycopy(more, 0, all, fields.length, more.length);
        return all;
    }

    private static Object[] fields(LastRun run) {
        return new Object[] { run.runId(), run.host(), run.pid(), run.startedAt().toEpochMilli(),
                (run.finishedAt() != null) ? run.finishedAt().toEpochMilli() : null,
                (run.duration() != null) ? run.duration().toMillis() : null, run.outcome().name(), run.error() };
    }

    private static LastRun run(ResultSet row, int number) throws SQLException {
        return new LastRun(row.getString(1), row.getString(2), row.getLong(3), Instant.ofEpochMilli(row.getLong(4)),
                instant(row, 5), duration(row, 6), LastRun.Outcome.valueOf(row.getString(7)), row.getString(8));
    }

    private static @Nullable Instant instant(ResultSet row, int column) throws SQLException {
        long millis = row.getLong(column);
        return row.wasNull() ? null : Instant.ofEpochMilli(millis);
    }

    private static @Nullable Duration duration(ResultSet row, int column) throws SQLException {
        long millis = row.getLong(column);
        return row.wasNull() ? null : Duration.ofMillis(millis);
    }

}
