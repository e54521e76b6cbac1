package io.github.delaytask.benchmark.system;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.github.kagkarlsson.scheduler.PollingStrategyConfig;
import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * db-scheduler, the plain library, on PostgreSQL: its {@code scheduled_tasks} table in a schema of each instance's
 * own, polled every 100 ms with lock-and-fetch ({@code SELECT ... FOR UPDATE SKIP LOCKED} in one statement), with
 * the lock-and-fetch limits of {@link #current} or of {@link #highThroughput}.
 */
public final class DbSchedulerSystem implements QueueSystem {

    static final int THREADS = 10;

    static final Duration POLLING_INTERVAL = Duration.ofMillis(100);

    /**
     * The limits its README gives "for high throughput (i.e. keep threads busy)": a fetch when as few executions are
     * left as there are threads, up to 4 per thread picked ahead.
     */
    static final PollingStrategyConfig HIGH_THROUGHPUT = new PollingStrategyConfig(
            PollingStrategyConfig.Type.LOCK_AND_FETCH, 1.0, 4.0);

    /** The table of db-scheduler 16 for PostgreSQL, from its documentation. */
    private static final String[] SCHEMA = { """
            CREATE TABLE scheduled_tasks (
              task_name text NOT NULL,
              task_instance text NOT NULL,
              task_data bytea,
              execution_time timestamp with time zone NOT NULL,
              picked BOOLEAN NOT NULL,
              picked_by text,
              last_success timestamp with time zone,
              last_failure timestamp with time zone,
              consecutive_failures INT,
              last_heartbeat timestamp with time zone,
              version BIGINT NOT NULL,
              priority SMALLINT,
              PRIMARY KEY (task_name, task_instance)
            )""", "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
            "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
            "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)" };

    private final Database database;

    private final String namePrefix;

    private final String label;

    private final PollingStrategyConfig polling;

    private final String why;

    private final AtomicInteger instances = new AtomicInteger();

    private DbSchedulerSystem(Database database, String namePrefix, String label, PollingStrategyConfig polling,
            String why) {
        this.database = database;
        this.namePrefix = namePrefix;
        this.label = label;
        this.polling = polling;
        this.why = why;
    }

    /** The limits of the README's "normal usage" example (0.5, 1.0): at most as many picked as there are threads. */
    public static DbSchedulerSystem current(Database database, String namePrefix) {
        return new DbSchedulerSystem(database, namePrefix + "_dbs_", "",
                PollingStrategyConfig.DEFAULT_SELECT_FOR_UPDATE, "the limits of the README's example for normal "
                        + "usage, at most as many executions picked as there are threads");
    }

    /** The limits the README recommends for high throughput (1.0, 4.0); everything else as {@link #current}. */
    public static DbSchedulerSystem highThroughput(Database database, String namePrefix) {
        return new DbSchedulerSystem(database, namePrefix + "_dbsb_", " (high-throughput)", HIGH_THROUGHPUT,
                "pollUsingLockAndFetch(1.0, 4.0), as its README recommends \"for high throughput (i.e. keep threads "
                        + "busy)\": the next fetch starts when as few picked executions are left as there are "
                        + "threads (10), and picks up to 4 per thread (40) ahead; threads and pollingInterval are "
                        + "left as in the other db-scheduler column, so that the limits are the one difference");
    }

    @Override
    public String name() {
        return "db-scheduler " + this.database.name() + this.label;
    }

    @Override
    public List<String> configuration() {
        return List.of("db-scheduler " + LibraryVersion.of("com.github.kagkarlsson", "db-scheduler")
                + " (plain library): threads " + THREADS + ", pollingInterval " + POLLING_INTERVAL.toMillis()
                + " ms, " + this.polling.describe() + " (" + this.why
                + "), other settings default (immediate execution off)",
                "HikariCP, default maximum-pool-size; one OneTimeTask per task kind, doing nothing; batched adds "
                        + "with SchedulerClient.scheduleBatch (one JDBC batch)");
    }

    @Override
    public Instance start(TaskSink sink) throws SQLException {
        String name = this.namePrefix + this.instances.incrementAndGet();
        Storage storage = this.database.create(name);
        try {
            storage.execute(SCHEMA);
            StatementCapture statements = new StatementCapture((sql) -> sql.contains("scheduled_tasks"));
            HikariConfig pool = new HikariConfig();
            pool.setJdbcUrl(storage.url());
            pool.setUsername(this.database.username());
            pool.setPassword(this.database.password());
            pool.setPoolName("db-scheduler-" + name);
            HikariDataSource dataSource = new HikariDataSource(pool);
            OneTimeTask<Void> task = Tasks.oneTime("task")
                .execute((instance, context) -> sink.handled(TaskKind.TASK,
                        context.getExecution().executionTime.toEpochMilli()));
            OneTimeTask<Void> backlog = Tasks.oneTime("backlog")
                .execute((instance, context) -> sink.handled(TaskKind.BACKLOG,
                        context.getExecution().executionTime.toEpochMilli()));
            Scheduler scheduler = Scheduler.create(statements.wrap(dataSource), task, backlog)
                .threads(THREADS)
                .pollingInterval(POLLING_INTERVAL)
                .pollUsingLockAndFetch(this.polling.lowerLimitFractionOfThreads,
                        this.polling.upperLimitFractionOfThreads)
                .shutdownMaxWait(Duration.ofSeconds(10))
                .build();
            scheduler.start();
            return new DbSchedulerInstance(scheduler, dataSource, task, backlog, storage, statements);
        }
        catch (RuntimeException ex) {
            storage.close();
            throw ex;
        }
    }

}
