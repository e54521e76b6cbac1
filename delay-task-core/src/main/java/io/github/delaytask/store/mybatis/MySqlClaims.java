package io.github.delaytask.store.mybatis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

import io.github.delaytask.TaskStatus;
import io.github.delaytask.store.StoredTask;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The claims and acknowledgements of MySQL 8 and MariaDB 10.6 or later: two statements a claim and four an
 * acknowledgement (five when another transaction holds a row), whatever the number of tasks, in one transaction that
 * joins the caller's. A statement per task (a JDBC batch), as on H2, cost MariaDB three to five times as much, and
 * MySQL Connector/J sends a batch one statement per round trip unless the URL says otherwise.
 * <p>
 * The ids reach each statement as one JSON array, whose rows drive a join into the primary key. With an
 * {@code IN} list both servers may read a small table whole, and a locking statement that does so waits for every
 * row another transaction holds, other tasks' too: a cancel in a long business transaction would hold up every claim
 * and acknowledgement until it commits. Neither server has {@code UPDATE ... RETURNING}, so a claim locks and reads
 * its rows first and then changes them. Nothing here needs a setting in the JDBC URL: no multi-statement queries, no
 * rewritten batches.
 */
final class MySqlClaims {

    // the id list, as rows read first (STRAIGHT_JOIN), each finding its task by the primary key (FORCE INDEX)
    private static final String TASKS_BY_ID = "JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) c "
            + "STRAIGHT_JOIN taskinfo t FORCE INDEX (PRIMARY) ON t.task_id = c.id";

    // rows another transaction holds are skipped, not waited for; due and unheld are checked on the rows read, as
    // the rows of the list are locked anyway
    private static final String CANDIDATES = "SELECT %s FROM " + TASKS_BY_ID + " FOR UPDATE SKIP LOCKED";

    // every row of the list is locked by this transaction since the SELECT, so none has changed meanwhile
    private static final String CLAIM = "UPDATE " + TASKS_BY_ID + " SET t.version = t.version + 1, t.lease_until = ?";

    // under REPEATABLE READ a business transaction keeps the lock of a cancel that found the task running, until it
    // commits: such rows are skipped, and only their tasks wait for it, not every other outcome of the batch
    private static final String LOCK_CLAIMED = "SELECT t.task_id, t.version FROM " + TASKS_BY_ID
            + " FOR UPDATE SKIP LOCKED";

    // a plain read, whose snapshot the locking reads before it did not fix: a row left out above is either gone or
    // changed (the claim was lost), or still as claimed and held by another transaction
    private static final String READ_CLAIMED = "SELECT t.task_id, t.version FROM " + TASKS_BY_ID;

    private static final String LOCK_LOGS = "SELECT l.task_id FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) "
            + "c STRAIGHT_JOIN taskinfo_logs l FORCE INDEX (PRIMARY) ON l.task_id = c.id FOR UPDATE SKIP LOCKED";

    // rows another transaction holds are skipped: their tasks cannot be claimed meanwhile, and the next renewal after
    // it ends extends them
    private static final String LOCK_LEASED = "SELECT t.task_id, t.version FROM " + TASKS_BY_ID
            + " WHERE t.lease_until IS NOT NULL FOR UPDATE SKIP LOCKED";

    private static final String RENEW = "UPDATE " + TASKS_BY_ID + " SET t.lease_until = GREATEST(t.lease_until, ?)";

    // a single-table DELETE takes no index hint
    private static final String DELETE_CLAIMED = "DELETE t FROM " + TASKS_BY_ID;

    private static final String LOG_EXECUTED = "UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', "
            + "attempt INT PATH '$[1]')) c STRAIGHT_JOIN taskinfo_logs l FORCE INDEX (PRIMARY) ON l.task_id = c.id "
            + "SET l.status = ?, l.attempts = c.attempt, l.last_error = NULL, l.version = l.version + 1, "
            + "l.finished_at = (%s)";

    private final JdbcTemplate jdbc;

    private final TransactionTemplate transactions;

    private final String candidates;

    private final RowMapper<StoredTask> mapper;

    private final String logExecuted;

    private final TableNames tables;

    /**
     * @param clock the database's time in epoch ms, as an SQL expression
     * @param traced whether claims read the trace context
     */
    MySqlClaims(JdbcTemplate jdbc, PlatformTransactionManager transactionManager, String clock, boolean traced,
            TableNames tables) {
        this.jdbc = jdbc;
        this.tables = tables;
        this.transactions = new TransactionTemplate(transactionManager);
        String columns = "t." + (traced ? DatabaseStatements.TRACED_COLUMNS : DatabaseStatements.LIVE_COLUMNS)
            .replace(", ", ", t.");
        this.candidates = this.tables.sql(CANDIDATES).formatted(columns);
        this.mapper = traced ? DatabaseStatements::tracedTask : DatabaseStatements::storedTask;
        this.logExecuted = this.tables.sql(LOG_EXECUTED).formatted(clock);
    }

    /** See {@link DatabaseStatements#claimDue}. */
    List<StoredTask> claimDue(Collection<Long> taskIds, long now, long leaseUntil) {
        // a duplicate id would be a second row of the join
        String ids = json(new LinkedHashSet<>(taskIds));
        List<StoredTask> won = this.transactions.execute((tx) -> {
            List<StoredTask> claimed = new ArrayList<>(taskIds.size());
            StringJoiner claimedIds = new StringJoiner(",", "[", "]");
            for (StoredTask task : this.jdbc.query(this.candidates, this.mapper, ids)) {
                if (!task.leasedAt(now) && task.executeTime() <= now) {
                    claimed.add(task.claimed(leaseUntil));
                    claimedIds.add(Long.toString(task.taskId()));
                }
            }
            if (!claimed.isEmpty()) {
                this.jdbc.update(this.tables.sql(CLAIM), claimedIds.toString(), leaseUntil);
            }
            return claimed;
        });
        return (won != null) ? won : List.of();
    }

    /** See {@link DatabaseStatements#finishExecuted}. */
    DatabaseStatements.FinishedIds finishExecuted(List<StoredTask> claimed) {
        Map<Long, StoredTask> claims = new HashMap<>();
        claimed.forEach((task) -> claims.put(task.taskId(), task));
        DatabaseStatements.FinishedIds finished = this.transactions.execute((tx) -> {
            Map<Long, StoredTask> standing = new LinkedHashMap<>();
            Set<Long> locked = new HashSet<>();
            this.jdbc.query(this.tables.sql(LOCK_CLAIMED), (RowCallbackHandler) (row) -> {
                StoredTask claim = claims.get(row.getLong(1));
                locked.add(claim.taskId());
                if (claim.version() == row.getInt(2)) {
                    standing.put(claim.taskId(), claim);
                }
            }, json(claims.keySet()));
            List<Long> held = new ArrayList<>();
            if (locked.size() < claims.size()) {
                Set<Long> unlocked = new LinkedHashSet<>(claims.keySet());
                unlocked.removeAll(locked);
                this.jdbc.query(this.tables.sql(READ_CLAIMED), (RowCallbackHandler) (row) -> {
                    if (claims.get(row.getLong(1)).version() == row.getInt(2)) {
                        held.add(row.getLong(1));
                    }
                }, json(unlocked));
            }
            if (!standing.isEmpty()) {
                Set<Long> logs = new HashSet<>(this.jdbc.queryForList(this.tables.sql(LOCK_LOGS), Long.class,
                        json(standing.keySet())));
                standing.keySet().stream().filter((id) -> !logs.contains(id)).toList().forEach((id) -> {
                    standing.remove(id);
                    held.add(id);
                });
            }
            if (standing.isEmpty()) {
                return new DatabaseStatements.FinishedIds(List.of(), held);
            }
            List<Long> ids = List.copyOf(standing.keySet());
            this.jdbc.update(this.tables.sql(DELETE_CLAIMED), json(ids));
            StringJoiner attempts = new StringJoiner(",", "[", "]");
            standing.values().forEach((task) -> attempts.add("[" + task.taskId() + "," + task.attempt() + "]"));
            this.jdbc.update(this.logExecuted, attempts.toString(), TaskStatus.EXECUTED.code());
            return new DatabaseStatements.FinishedIds(ids, held);
        });
        return (finished != null) ? finished : DatabaseStatements.FinishedIds.all(List.of());
    }

    /** See {@link DatabaseStatements#renewLeases}. */
    int renewLeases(Collection<StoredTask> running, long leaseUntil) {
        Map<Long, StoredTask> claims = new HashMap<>();
        running.forEach((task) -> claims.put(task.taskId(), task));
        Integer renewed = this.transactions.execute((tx) -> {
            List<Long> held = new ArrayList<>(claims.size());
            this.jdbc.query(this.tables.sql(LOCK_LEASED), (RowCallbackHandler) (row) -> {
                if (claims.get(row.getLong(1)).version() == row.getInt(2)) {
                    held.add(row.getLong(1));
                }
            }, json(claims.keySet()));
            if (held.isEmpty()) {
                return 0;
            }
            this.jdbc.update(this.tables.sql(RENEW), json(held), leaseUntil);
            return held.size();
        });
        return (renewed != null) ? renewed : 0;
    }

    private static String json(Collection<Long> ids) {
        StringJoiner array = new StringJoiner(",", "[", "]");
        ids.forEach((id) -> array.add(Long.toString(id)));
        return array.toString();
    }

}
