package io.github.delaytask.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The trap of a task table that starts empty and fills fast: PostgreSQL keeps, per connection, a plan it cached
 * while the table was empty (sequential scans) until the next ANALYZE. Claims, acknowledgements and cancels by
 * business key must go on reading by index once the table is large, on a table never analyzed.
 */
@Tag("real-services")
class PostgreSqlQueryPlanTests {

    private static final int TASK_TYPE = 31;

    private TestBackend backend;

    @BeforeEach
    void createBackend() {
        this.backend = TestBackend.postgreSql();
    }

    @AfterEach
    void closeBackend() {
        this.backend.close();
    }

    /**
     * The scans counted below depend on when the server happens to drop the plans it cached (an autovacuum, an
     * invalidation of its caches): what makes them not matter is that it never runs a statement of the starter's
     * from a cached plan, whatever reads the tables, asked for here from the session's own list of statements.
     */
    @Test
    void noStatementThatReadsTheTablesRunsFromAPlanTheServerCachedWhileTheTableWasSmall() {
        this.backend.applicationRunner()
            .withPropertyValues("delay-task.listener.enabled=false", "spring.datasource.hikari.maximum-pool-size=1",
                    "delay-task.reload-interval=1h", "delay-task.feed-interval=1h", "delay-task.preload-window=2h")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                TaskStore store = context.getBean(TaskStore.class);
                JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                long now = store.currentTimeMillis();
                // each kind of statement more often than the driver and the server need to settle on a cached plan
                for (int i = 0; i < 20; i++) {
                    long id = service.addTask(DelayTask.builder(TASK_TYPE).build());
                    List<StoredTask> won = store.claimDue(List.of(id), now + 1000, now + 60_000);
                    assertThat(store.finishAllExecuted(won).finished()).hasSize(1);
                    assertThat(service.findTask(id)).isPresent();
                    // the claim of the database's dispatch, while Redis does not answer
                    service.addTask(DelayTask.builder(TASK_TYPE).build());
                    List<StoredTask> polled = store.claimDueInQueues(Map.of(new QueueId(TASK_TYPE, 0), 10),
                            now + 1000, now + 60_000);
                    assertThat(store.finishAllExecuted(polled).finished()).hasSize(1);
                    long keyed = service.addTask(DelayTask.builder(TASK_TYPE).bizKey("small-" + i).build());
                    assertThat(service.findTask("small-" + i)).isPresent();
                    assertThat(service.rescheduleTask(keyed, Instant.ofEpochMilli(now + 120_000))).isTrue();
                    assertThat(service.cancelTask("small-" + i)).isTrue();
                    assertThat(service.findDeadTasks(0, 10)).isEmpty();
                }
                assertThat(store.findDue(now + 60_000, 0, 0, 1000)).isEmpty();
                // the same connection (a pool of one): the list is the session's. The insert reads no table, and
                // the driver's own COMMIT none either
                List<String> cached = jdbc.queryForList("SELECT statement FROM pg_prepared_statements "
                        + "WHERE generic_plans > 0 AND statement LIKE '%taskinfo%' "
                        + "AND statement NOT LIKE 'WITH task AS (INSERT INTO taskinfo %'", String.class);
                assertThat(cached).as("statements run from a plan the server cached").isEmpty();
            });
    }

    @Test
    void claimsAcknowledgementsAndKeyLookupsReadByIndexAfterTheTableFilledFromEmpty() {
        this.backend.applicationRunner()
            // one connection, so that every statement runs where the plans of the earlier ones are cached; no
            // listener, no feed, reload or refresh in the measured part, so that only the statements under test
            // touch the tables: a refresh that finds the queue's loaded marker missing starts a recovery, which reads
            // them
            .withPropertyValues("delay-task.listener.enabled=false", "spring.datasource.hikari.maximum-pool-size=1",
                    "delay-task.reload-interval=1h", "delay-task.feed-interval=1h", "delay-task.preload-window=2h",
                    "delay-task.refresh-interval=1h")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                TaskStore store = context.getBean(TaskStore.class);
                JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                // the feed's first pass at start-up, done on the empty table: held up by the one connection, the
                // reload at start-up once read the filled table in the measured part
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> context.getBean(DelayTaskJobs.class).lastReload() != null);
                long now = store.currentTimeMillis();
                // on the empty table, more often than the driver needs to prepare a statement on the server
                for (int i = 0; i < 10; i++) {
                    long id = service.addTask(DelayTask.builder(TASK_TYPE).build());
                    List<StoredTask> won = store.claimDue(List.of(id), now + 1000, now + 60_000);
                    assertThat(store.finishAllExecuted(won).finished()).hasSize(1);
                    service.addTask(DelayTask.builder(TASK_TYPE).bizKey("early-" + i).build());
                    assertThat(service.cancelTask("early-" + i)).isTrue();
                }
                List<Long> ids = new ArrayList<>();
                // large enough that reading 100 rows by key is the better plan by PostgreSQL's own cost model
                for (int i = 0; i < 100; i++) {
                    List<DelayTask> batch = new ArrayList<>();
                    for (int j = 0; j < 1000; j++) {
                        batch.add(DelayTask.builder(TASK_TYPE).build());
                    }
                    ids.addAll(service.addTasks(batch));
                    service.addTask(DelayTask.builder(TASK_TYPE).bizKey("key-" + i).build());
                }
                // the filling's own scans (on the empty table, where reading it whole is the better plan), which a
                // backend sends to the statistics at most once a second, must be counted before, not after: forced
                // out when the connection next goes idle, which it has once it answered the next statement
                jdbc.execute("SELECT pg_stat_force_next_flush()");
                jdbc.execute("SELECT 1");
                long[] before = scans();
                // one page of a reload, with every task of the table due
                assertThat(store.findDue(now + 60_000, 0, 0, 1000)).hasSize(1000);
                int rounds = 10;
                for (int i = 0; i < rounds; i++) {
                    List<StoredTask> won = store.claimDue(ids.subList(i * 100, i * 100 + 100), now + 1000,
                            now + 60_000);
                    assertThat(won).hasSize(100);
                    assertThat(store.finishAllExecuted(won).finished()).hasSize(100);
                    assertThat(service.cancelTask("key-" + i)).isTrue();
                }
                jdbc.execute("SELECT pg_stat_force_next_flush()");
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> scans()[1] - before[1] >= rounds && scans()[3] - before[3] >= rounds);
                long[] after = scans();
                assertThat(after[0] - before[0]).as("sequential scans of taskinfo").isZero();
                assertThat(after[2] - before[2]).as("sequential scans of taskinfo_logs").isZero();
            });
    }

    /** seq_scan and idx_scan of taskinfo, then of taskinfo_logs, as the statistics collector has them. */
    private long[] scans() throws SQLException {
        String url = this.backend.jdbcUrl();
        String schema = url.substring(url.indexOf("currentSchema=") + "currentSchema=".length());
        try (Connection connection = DriverManager.getConnection(url, this.backend.jdbcUsername(), "");
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT relname, seq_scan, COALESCE(idx_scan, 0) "
                        + "FROM pg_stat_user_tables WHERE schemaname = '" + schema + "'")) {
            long[] scans = new long[4];
            while (rows.next()) {
                int offset = switch (rows.getString(1)) {
                    case "taskinfo" -> 0;
                    case "taskinfo_logs" -> 2;
                    default -> -1;
                };
                if (offset >= 0) {
                    scans[offset] = rows.getLong(2);
                    scans[offset + 1] = rows.getLong(3);
                }
            }
            return scans;
        }
    }

}
