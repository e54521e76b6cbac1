package io.github.delaytask.store.mybatis;

import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The statements of MySQL 8 and MariaDB 10.6 or later.
 */
final class MySqlStatements extends BatchedStatements {

    // UTC_TIMESTAMP does not go through the session's time zone, which UNIX_TIMESTAMP(CURRENT_TIMESTAMP) does, and
    // which reads an hour of the autumn's DST fold twice: counted from the epoch as a datetime, it is exact
    private static final String CLOCK = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000";

    // a locking read sees the latest committed row, where a plain one in REPEATABLE READ sees the transaction's
    // snapshot, taken before the winner of the race for the key committed
    private static final String COMMITTED_ID_BY_BIZ_KEY = "SELECT task_id FROM taskinfo WHERE biz_key = ? "
            + "LOCK IN SHARE MODE";

    MySqlStatements(JdbcTemplate jdbc, PlatformTransactionManager transactionManager) {
        super(jdbc, transactionManager, CLOCK);
    }

    @Override
    public Long findCommittedIdByBizKey(String bizKey) {
        List<Long> ids = this.jdbc.queryForList(COMMITTED_ID_BY_BIZ_KEY, Long.class, bizKey);
        return ids.isEmpty() ? null : ids.get(0);
    }

}
