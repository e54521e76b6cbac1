package io.github.delaytask.store.mybatis;

import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The statements of H2 2.x, the embedded default.
 */
final class H2Statements extends BatchedStatements {

    static final String CLOCK = "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)";

    // the purge's index, read in order: the oldest rows first
    private static final String DELETE_FINISHED = "DELETE FROM taskinfo_logs WHERE status = ? AND status <> 0 "
            + "AND finished_at < ? FETCH FIRST ? ROWS ONLY";

    private static final String DELETE_UNSTAMPED = "DELETE FROM taskinfo_logs WHERE status = ? AND status <> 0 "
            + "AND finished_at IS NULL AND execute_time < ? FETCH FIRST ? ROWS ONLY";

    H2Statements(JdbcTemplate jdbc, PlatformTransactionManager transactionManager, boolean traced,
            TableNames tables) {
        super(jdbc, transactionManager, CLOCK, traced, tables);
    }

    @Override
    public Long findCommittedIdByBizKey(String bizKey) {
        // READ COMMITTED unless told otherwise: each statement sees what was committed before it
        List<Long> ids = this.jdbc.queryForList("SELECT task_id FROM " + this.tables.tasks() + " WHERE biz_key = ?",
                Long.class, bizKey);
        return ids.isEmpty() ? null : ids.get(0);
    }

    @Override
    public int deleteFinished(int status, long finishedBefore, boolean unstamped, int limit) {
        return this.jdbc.update(this.tables.sql(unstamped ? DELETE_UNSTAMPED : DELETE_FINISHED), status,
                finishedBefore, limit);
    }

}
