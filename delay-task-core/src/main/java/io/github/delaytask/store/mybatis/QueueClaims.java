package io.github.delaytask.store.mybatis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.store.StoredTask;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claims due tasks of queues straight from the database, where Redis gives no ids: while Redis does not answer.
 * <p>
 * The due rows are read earliest first and locked with {@code FOR UPDATE SKIP LOCKED}, so that instances that poll at
 * once take different tasks rather than queue up behind each other; the rows then go through the database's own
 * version-checked claim, as ids from Redis do, in the same transaction. It reads committed rows (MySQL's and MariaDB's
 * REPEATABLE READ would lock the gaps it scanned, and hold up adds of tasks due now until it commits).
 */
final class QueueClaims {

    // the (execute_time, task_id) index, read in order from the earliest; the rows of other queues and the running
    // ones are passed over
    private static final String DUE_IDS = "SELECT task_id, task_type, priority FROM taskinfo WHERE execute_time <= ? "
            + "AND (lease_until IS NULL OR lease_until <= ?) AND (task_type, priority) IN (%s) "
            + "ORDER BY execute_time, task_id LIMIT ? FOR UPDATE SKIP LOCKED";

    private final JdbcTemplate jdbc;

    private final TableNames tables;

    private final TransactionTemplate transactions;

    QueueClaims(JdbcTemplate jdbc, PlatformTransactionManager transactionManager, TableNames tables) {
        this.jdbc = jdbc;
        this.tables = tables;
        this.transactions = new TransactionTemplate(transactionManager);
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.transactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
    }

    /**
     * @param counts the most tasks to claim from each queue
     * @param statements the database's statements, whose claim of tasks by id this one ends with
     * @return the tasks won, as claimed
     */
    List<StoredTask> claim(Map<QueueId, Integer> counts, long now, long leaseUntil, DatabaseStatements statements) {
        StringJoiner queues = new StringJoiner(", ");
        List<Object> args = new ArrayList<>();
        args.add(now);
        args.add(now);
        int total = 0;
        for (Map.Entry<QueueId, Integer> count : counts.entrySet()) {
            if (count.getValue() > 0) {
                queues.add("(?, ?)");
                args.add(count.getKey().taskType());
                args.add(count.getKey().priority());
                total += count.getValue();
            }
        }
        if (total == 0) {
            return List.of();
        }
        args.add(total);
        String sql = this.tables.sql(DUE_IDS).formatted(queues);
        List<StoredTask> won = this.transactions.execute((tx) -> {
            Map<QueueId, Integer> left = new HashMap<>(counts);
            List<Long> ids = new ArrayList<>();
            this.jdbc.query(sql, (row) -> {
                QueueId queue = new QueueId(row.getInt(2), row.getInt(3));
                // earliest first across the queues; each takes no more than its count
                if (left.merge(queue, -1, Integer::sum) >= 0) {
                    ids.add(row.getLong(1));
                }
            }, args.toArray());
            return ids.isEmpty() ? List.<StoredTask>of() : statements.claimDue(ids, now, leaseUntil);
        });
        return (won != null) ? won : List.of();
    }

}
