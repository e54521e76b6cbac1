package io.github.delaytask.store.mybatis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.StringJoiner;

import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The statements of MySQL 8 and MariaDB 10.6 or later: claims and acknowledgements by {@link MySqlClaims}, the rest
 * portable.
 */
final class MySqlStatements extends BatchedStatements {

    private static final Log logger = LogFactory.getLog(MySqlStatements.class);

    // UTC_TIMESTAMP does not go through the session's time zone, which UNIX_TIMESTAMP(CURRENT_TIMESTAMP) does, and
    // which reads an hour of the autumn's DST fold twice: counted from the epoch as a datetime, it is exact
    static final String CLOCK = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000";

    // a locking read sees the latest committed row, where a plain one in REPEATABLE READ sees the transaction's
    // snapshot, taken before the winner of the race for the key committed
    private static final String COMMITTED_ID_BY_BIZ_KEY = "SELECT task_id FROM taskinfo WHERE biz_key = ? "
            + "LOCK IN SHARE MODE";

    private static final String PURGE_INDEX_HINT = "FORCE INDEX (idx_taskinfo_logs_finished) ";

    // MariaDB takes no index hint in a DELETE ... ORDER BY ... LIMIT, and answers one by sorting every row of the
    // status, read by the (status, task_id) index (seconds a batch on a million rows). A plain read picks the rows by
    // the purge's index instead, taking no lock; the delete then finds them by key, locking only those rows and not
    // the index's gaps, so that the finishes that write new rows into the index meanwhile never wait for it. It
    // checks the condition again: a row requeued in between stays.
    private static final String OLDEST_FINISHED = "SELECT task_id FROM taskinfo_logs "
            + PURGE_INDEX_HINT + "WHERE status = ? AND status <> 0 AND finished_at < ? "
            + "ORDER BY finished_at LIMIT ?";

    private static final String DELETE_FINISHED = "DELETE FROM taskinfo_logs WHERE status = ? AND status <> 0 "
            + "AND finished_at < ? AND task_id IN ";

    // the index holds the rows without a finishing time in execute_time order already: no ORDER BY, which MariaDB
    // would answer with a sort
    private static final String OLDEST_UNSTAMPED = "SELECT task_id FROM taskinfo_logs "
            + PURGE_INDEX_HINT + "WHERE status = ? AND status <> 0 AND finished_at IS NULL "
            + "AND execute_time < ? LIMIT ?";

    private static final String DELETE_UNSTAMPED = "DELETE FROM taskinfo_logs WHERE status = ? AND status <> 0 "
            + "AND finished_at IS NULL AND execute_time < ? AND task_id IN ";

    private final MySqlClaims claims;

    private volatile boolean purgeIndexHint = true;

    MySqlStatements(JdbcTemplate jdbc, PlatformTransactionManager transactionManager, boolean traced,
            TableNames tables) {
        super(jdbc, transactionManager, CLOCK, traced, tables);
        this.claims = new MySqlClaims(jdbc, transactionManager, CLOCK, traced, tables);
    }

    @Override
    public List<StoredTask> claimDue(Collection<Long> taskIds, long now, long leaseUntil) {
        return this.claims.claimDue(taskIds, now, leaseUntil);
    }

    @Override
    public int renewLeases(Collection<StoredTask> running, long leaseUntil) {
        return this.claims.renewLeases(running, leaseUntil);
    }

    @Override
    public boolean cancelDead(long taskId) {
        return DatabaseStatements.cancelDead(this.jdbc, this.tables.logs() + " FORCE INDEX (PRIMARY)", CLOCK, taskId);
    }

    @Override
    public FinishedIds finishExecuted(List<StoredTask> claimed) {
        return this.claims.finishExecuted(claimed);
    }

    @Override
    public Long findCommittedIdByBizKey(String bizKey) {
        List<Long> ids = this.jdbc.queryForList(this.tables.sql(COMMITTED_ID_BY_BIZ_KEY), Long.class, bizKey);
        return ids.isEmpty() ? null : ids.get(0);
    }

    @Override
    public int deleteFinished(int status, long finishedBefore, boolean unstamped, int limit) {
        List<Long> ids = oldest(this.tables.sql(unstamped ? OLDEST_UNSTAMPED : OLDEST_FINISHED), status,
                finishedBefore, limit);
        if (ids.isEmpty()) {
            return 0;
        }
        StringJoiner in = new StringJoiner(", ", this.tables.sql(unstamped ? DELETE_UNSTAMPED : DELETE_FINISHED)
                + "(", ")");
        List<Object> arguments = new ArrayList<>(ids.size() + 2);
        arguments.add(status);
        arguments.add(finishedBefore);
        for (Long id : ids) {
            in.add("?");
            arguments.add(id);
        }
        return this.jdbc.update(in.toString(), arguments.toArray());
    }

    /**
     * The ids of a batch, through the purge's index. A schema upgraded by hand with the column but not the index
     * would make the hint fail every purge, for ever: the purge then goes on without it, slower, and says so once.
     */
    private List<Long> oldest(String sql, int status, long finishedBefore, int limit) {
        if (this.purgeIndexHint) {
            try {
                return this.jdbc.queryForList(sql, Long.class, status, finishedBefore, limit);
            }
            catch (BadSqlGrammarException ex) {
                this.purgeIndexHint = false;
                logger.warn(this.tables.logs() + " has no index " + this.tables.sql("idx_taskinfo_logs_finished")
                        + ", which the history purge reads: "
                        + "purging without it, slowly. Create it as the README's upgrade notes say", ex);
            }
        }
        return this.jdbc.queryForList(sql.replace(this.tables.sql(PURGE_INDEX_HINT), ""), Long.class, status,
                finishedBefore, limit);
    }

}
