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
 * own, polled every 100 ms with lock-and-fetch ({@code SELECT ... FOR UPDATE SKIP LOCKED} in one statement).
 */
public final class DbSchedulerSystem implements QueueSystem {

    static final int THREADS = 10;

    static final Duration POLLING_INTERVAL = Duration.ofMillis(100);

    static final PollingStrategyConfig POLLING = PollingStrategyConfig.DEFAULT_SELECT_FOR_UPDATE;

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

    private final AtomicInteger instances = new AtomicInteger();

    public DbSchedulerSystem(Database database, String namePrefix) {
        this.database = database;
        this.namePrefix = namePrefix;
    }

    @Override
    public String name() {
        return "db-scheduler " + this.database.name();
    }

    @Override
    public List<String> configuration() {
        return List.of("db-scheduler " + LibraryVersion.of("com.github.kagkarlsson", "db-scheduler")
                + " (plain library): threads " + THREADS + ", pollingInterval " + POLLING_INTERVAL.toMillis()
                + " ms, " + POLLING.describe() + ", other settings default (immediate execution off)",
                "HikariCP, default maximum-pool-size; one OneTimeTask per task kind, doing nothing; batched adds "
                        + "with SchedulerClient.scheduleBatch (one JDBC batch)");
    }

    @Override
    public Instance start(TaskSink sink) throws SQLException {
        String name = this.namePrefix + "_dbs_" + this.instances.incrementAndGet();
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
                .pollUsingLockAndFetch(POLLING.lowerLimitFractionOfThreads, POLLING.upperLimitFractionOfThreads)
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
