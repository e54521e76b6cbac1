package io.github.delaytask.store.mybatis;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.InvalidIsolationLevelException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claims due tasks of queues straight from the database, where Redis gives no ids: while Redis does not answer.
 * <p>
 * Each queue's earliest due rows that no consumer holds are read and locked with {@code FOR UPDATE SKIP LOCKED}, so
 * that instances that poll at once take different tasks rather than queue up behind each other; the rows then go
 * through the database's own version-checked claim, as ids from Redis do, in the same transaction. It reads
 * committed rows where the transaction manager and the server allow it: MySQL's and MariaDB's REPEATABLE READ would
 * lock the gaps it scanned, and hold up adds of tasks due by now until it commits.
 */
final class QueueClaims {

    private static final Log logger = LogFactory.getLog(QueueClaims.class);

    // the (execute_time, task_id) index, read in order from the earliest; the rows of other queues and the running
    // ones are passed over
    private static final String DUE_IDS = "SELECT task_id FROM taskinfo WHERE execute_time <= ? "
            + "AND (lease_until IS NULL OR lease_until <= ?) AND task_type = ? AND priority = ? "
            + "ORDER BY execute_time, task_id LIMIT ? FOR UPDATE SKIP LOCKED";

    // the same index from the window's start to the queue's first task; ordered with a limit rather than MIN, which
    // MySQL would answer by reading the whole window
    private static final String NEXT_DUE = "SELECT execute_time FROM taskinfo WHERE execute_time > ? "
            + "AND execute_time <= ? AND task_type = ? AND priority = ? ORDER BY execute_time, task_id LIMIT 1";

    /** MySQL's ER_BINLOG_STMT_MODE_AND_ROW_ENGINE. */
    private static final int MYSQL_BINLOG_STATEMENT_FORMAT = 1665;

    private final JdbcTemplate jdbc;

    private final String dueIds;

    private final String nextDue;

    private final TransactionTemplate readCommitted;

    private final TransactionTemplate asConfigured;

    /** Until a transaction at READ COMMITTED is refused (a JTA manager, MySQL's statement-based binary log). */
    private volatile boolean committedReads = true;

    QueueClaims(JdbcTemplate jdbc, PlatformTransactionManager transactionManager, TableNames tables) {
        this.jdbc = jdbc;
        this.dueIds = tables.sql(DUE_IDS);
        this.nextDue = tables.sql(NEXT_DUE);
        this.readCommitted = new TransactionTemplate(transactionManager);
        this.readCommitted.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        this.asConfigured = new TransactionTemplate(transactionManager);
        this.asConfigured.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    /**
     * @param counts the most tasks to claim from each queue
     * @param statements the database's statements, whose claim of tasks by id this one ends with
     * @return the tasks won, as claimed
     */
    List<StoredTask> claim(Map<QueueId, Integer> counts, long now, long leaseUntil, DatabaseStatements statements) {
        if (this.committedReads) {
            try {
                return claim(this.readCommitted, counts, now, leaseUntil, statements);
            }
            catch (InvalidIsolationLevelException | DataAccessException ex) {
                if (!refusesReadCommitted(ex)) {
                    throw ex;
                }
                this.committedReads = false;
                logger.warn("READ COMMITTED was refused (" + ex.getMessage() + "); claims straight from the database "
                        + "run at the data source's own isolation from now on");
            }
        }
        return claim(this.asConfigured, counts, now, leaseUntil, statements);
    }

    /** The earliest execute time in the window of each queue that has one: a plain read, no transaction. */
    Map<QueueId, Long> nextDueTimes(Collection<QueueId> queues, long after, long until) {
        Map<QueueId, Long> next = new HashMap<>();
        for (QueueId queue : queues) {
            List<Long> first = this.jdbc.queryForList(this.nextDue, Long.class, after, until, queue.taskType(),
                    queue.priority());
            if (!first.isEmpty()) {
                next.put(queue, first.get(0));
            }
        }
        return next;
    }

    /**
     * Whether a claim failed because its transaction may not read committed rows: a transaction manager that takes
     * no isolation level (JTA's, unless told otherwise), or MySQL writing a statement-based binary log (error 1665).
     */
    private static boolean refusesReadCommitted(RuntimeException ex) {
        if (ex instanceof InvalidIsolationLevelException) {
            return true;
        }
        return NestedExceptionUtils.getMostSpecificCause(ex) instanceof SQLException sql
                && sql.getErrorCode() == MYSQL_BINLOG_STATEMENT_FORMAT;
    }

    private List<StoredTask> claim(TransactionTemplate transactions, Map<QueueId, Integer> counts, long now,
            long leaseUntil, DatabaseStatements statements) {
        List<StoredTask> won = transactions.execute((tx) -> {
            // where the database locks and claims in one statement (PostgreSQL), in this transaction all the same: its
            // isolation, and none of a caller's
            List<StoredTask> inOneStatement = statements.claimDueInQueues(counts, now, leaseUntil);
            if (inOneStatement != null) {
                return inOneStatement;
            }
            // a statement per queue, each with its own limit: one limit for all would let the earliest backlog
            // take every place
            List<Long> ids = new ArrayList<>();
            counts.forEach((queue, count) -> {
                if (count > 0) {
                    ids.addAll(this.jdbc.queryForList(this.dueIds, Long.class, now, now, queue.taskType(),
                            queue.priority(), count));
                }
            });
            return ids.isEmpty() ? List.<StoredTask>of() : statements.claimDue(ids, now, leaseUntil);
        });
        return (won != null) ? won : List.of();
    }

}
