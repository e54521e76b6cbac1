package io.github.delaytask.store.mybatis;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.QueueRegistry;
import io.github.delaytask.redis.QueueStats;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.function.SingletonSupplier;

/**
 * The pauses of queues without Redis, in a table of the task store's database ({@code taskinfo_queue}): a row per
 * paused queue. The queues it knows are the paused ones; the database's counts show the others. Each change commits
 * in a transaction of its own, so that the other instances see it at their next look whatever the caller's
 * transaction does, as they would a pause in Redis. Public for wiring.
 */
public class JdbcQueuePauses implements QueueRegistry {

    /** How long a missing table is taken as missing before it is looked for again. */
    private static final long MISSING_FOR_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final JdbcTemplate jdbc;

    private final TransactionTemplate transactions;

    private final TableNames tables;

    /** The insert's ending that ignores a queue paused already; read on first use, so a database down stops nothing. */
    private final Supplier<String> ignoreDuplicate;

    /** The database's clock, epoch ms, as an expression. */
    private final Supplier<String> now;

    /**
     * When the table was last found missing, nanos of {@link System#nanoTime()}; 0 when it was not. It is looked for
     * again a minute later, rather than at every instance's every look, which a database logs as an error each time.
     */
    private volatile long missingAt;

    /**
     * @param jdbc on the task store's data source
     * @param transactions on the task store's data source, of which the pauses take the manager
     * @param tables the names of the tables
     */
    public JdbcQueuePauses(JdbcTemplate jdbc, TransactionTemplate transactions, TableNames tables) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactions.getTransactionManager());
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.tables = tables;
        this.ignoreDuplicate = SingletonSupplier.of(() -> "postgresql".equals(DatabaseStatements.platform(jdbc))
                ? " ON CONFLICT (task_type, priority) DO NOTHING" : "");
        this.now = SingletonSupplier.of(() -> "(" + DatabaseStatements.clockExpression(jdbc) + ")");
    }

    @Override
    public boolean pause(QueueId queue) {
        try {
            Integer inserted = this.transactions.execute((status) -> this.jdbc.update(sql("INSERT INTO taskinfo_queue "
                    + "(task_type, priority, paused_at) VALUES (?, ?, " + this.now.get() + ")"
                    + this.ignoreDuplicate.get()), queue.taskType(), queue.priority()));
            this.missingAt = 0;
            return inserted != null && inserted == 1;
        }
        catch (DuplicateKeyException ex) {
            return false;
        }
        catch (BadSqlGrammarException ex) {
            throw missingTable(ex);
        }
    }

    @Override
    public boolean resume(QueueId queue) {
        try {
            Integer deleted = this.transactions.execute((status) -> this.jdbc.update(
                    sql("DELETE FROM taskinfo_queue WHERE task_type = ? AND priority = ?"), queue.taskType(),
                    queue.priority()));
            return deleted != null && deleted == 1;
        }
        catch (BadSqlGrammarException ex) {
            throw missingTable(ex);
        }
    }

    @Override
    public boolean paused(QueueId queue) {
        return pausedQueues().contains(queue);
    }

    /** Every paused queue; none while the table is missing, which a warning said at start-up. */
    @Override
    public Set<QueueId> pausedQueues() {
        long missing = this.missingAt;
        if (missing != 0 && System.nanoTime() - missing < MISSING_FOR_NANOS) {
            return Set.of();
        }
        try {
            List<QueueId> paused = this.jdbc.query(sql("SELECT task_type, priority FROM taskinfo_queue"),
                    (row, index) -> new QueueId(row.getInt(1), row.getInt(2)));
            this.missingAt = 0;
            return new LinkedHashSet<>(paused);
        }
        catch (BadSqlGrammarException ex) {
            this.missingAt = System.nanoTime() | 1;
            return Set.of();
        }
    }

    /** The paused queues: the others are known by their tasks in the database. */
    @Override
    public Set<QueueId> queues() {
        return pausedQueues();
    }

    /** Nothing: there is no Redis. */
    @Override
    public QueueStats stats(QueueId queue) {
        return QueueStats.EMPTY;
    }

    /**
     * What the schema lacks for the pauses, with how to add it; empty when nothing.
     * @throws org.springframework.dao.DataAccessException when the database cannot be asked
     */
    public List<String> missingSchema() {
        try {
            this.jdbc.queryForList(sql("SELECT task_type, priority, paused_at FROM taskinfo_queue WHERE 1 = 0"));
            return List.of();
        }
        catch (BadSqlGrammarException ex) {
            return List.of(tableMessage());
        }
    }

    private IllegalStateException missingTable(BadSqlGrammarException ex) {
        return new IllegalStateException("The delay-task schema lacks the " + tableMessage(), ex);
    }

    private String tableMessage() {
        return "table " + this.tables.sql("taskinfo_queue") + " (the starter's schema script makes it, and version 10 "
                + "of its migrations): without Redis the pauses of queues are kept there";
    }

    private String sql(String statement) {
        return this.tables.sql(statement);
    }

}
