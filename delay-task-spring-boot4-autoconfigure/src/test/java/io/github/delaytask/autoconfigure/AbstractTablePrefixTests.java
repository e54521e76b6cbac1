package io.github.delaytask.autoconfigure;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import com.baomidou.mybatisplus.core.incrementer.DefaultIdentifierGenerator;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * {@code delay-task.jdbc.table-prefix}: two applications with prefixes of their own share one database (and one
 * Redis, under key prefixes of their own), the starter's script making each one's tables and indexes, and neither
 * sees the other's tasks through any statement of the contract. Subclasses pick the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractTablePrefixTests {

    static final int RUNS = 1;

    static final int DIES = 2;

    TestBackend backend;

    protected abstract TestBackend createBackend();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.deleteRedisKeys(this.backend.keyPrefix() + "-billing");
            this.backend.deleteRedisKeys(this.backend.keyPrefix() + "-shipping");
            this.backend.close();
        }
    }

    private ApplicationContextRunner application(String tablePrefix) {
        // ids of a worker of its own, as two applications in two processes would have: two in one JVM would
        // otherwise hand out the same id in the same millisecond (legitimately, into tables of their own)
        long worker = Math.floorMod(tablePrefix.hashCode(), 32);
        return this.backend.applicationRunner()
            .withBean(IdentifierGenerator.class, () -> new DefaultIdentifierGenerator(worker, worker))
            .withUserConfiguration(HandlersConfiguration.class)
            .withPropertyValues("delay-task.jdbc.table-prefix=" + tablePrefix,
                    "delay-task.redis.key-prefix=" + this.backend.keyPrefix() + "-" + tablePrefix.replace("_", ""),
                    "delay-task.retry.initial-delay=100ms");
    }

    @Test
    void twoApplicationsWithTablePrefixesOfTheirOwnShareOneDatabaseWithoutMeeting() {
        application("billing_").run((billing) -> application("shipping_").run((shipping) -> {
            // both started: the script made each one's tables and indexes, and the schema check found them all
            assertThat(billing).hasNotFailed();
            assertThat(shipping).hasNotFailed();
            DelayTaskService billingTasks = billing.getBean(DelayTaskService.class);
            DelayTaskService shippingTasks = shipping.getBean(DelayTaskService.class);
            Handlers billingRuns = billing.getBean(Handlers.class);
            Handlers shippingRuns = shipping.getBean(Handlers.class);

            // the same business key in each: two tables, two live tasks
            long billed = billingTasks.addTask(DelayTask.builder(RUNS).bizKey("order-1").build());
            long shipped = shippingTasks.addTask(DelayTask.builder(RUNS).bizKey("order-1").build());
            assertThat(billed).isNotEqualTo(shipped);
            await().atMost(Duration.ofSeconds(10))
                .until(() -> billingRuns.ran(billed) && shippingRuns.ran(shipped));
            assertThat(billingRuns.runs).containsOnlyKeys(billed);
            assertThat(shippingRuns.runs).containsOnlyKeys(shipped);
            assertThat(billingTasks.findTask(billed)).map(TaskDetails::status).contains(TaskStatus.EXECUTED);
            assertThat(billingTasks.findTask(shipped)).isEmpty();

            // cancel, reschedule and find by key reach only the application's own task
            long later = billingTasks
                .addTask(DelayTask.builder(RUNS).bizKey("order-2").delay(Duration.ofHours(1)).build());
            long laterShipped = shippingTasks
                .addTask(DelayTask.builder(RUNS).bizKey("order-2").delay(Duration.ofHours(1)).build());
            assertThat(billingTasks.findTask("order-2")).map(TaskDetails::taskId).contains(later);
            assertThat(billingTasks.rescheduleTask(later, Instant.now().plus(Duration.ofHours(2)))).isTrue();
            assertThat(billingTasks.cancelTask("order-2")).isTrue();
            assertThat(shippingTasks.findTask(laterShipped)).map(TaskDetails::status)
                .contains(TaskStatus.SCHEDULED);
            assertThat(billingTasks.findTask(later)).map(TaskDetails::status).contains(TaskStatus.CANCELLED);

            // a death and its requeue
            long dies = shippingTasks.addTask(DelayTask.builder(DIES).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> shippingTasks.findTask(dies)
                .map(TaskDetails::status)
                .orElse(null) == TaskStatus.DEAD);
            assertThat(shippingTasks.findDeadTasks(0, 10)).extracting(TaskDetails::taskId).containsExactly(dies);
            assertThat(billingTasks.findDeadTasks(0, 10)).isEmpty();
            assertThat(shippingTasks.requeueTask(dies)).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> shippingTasks.findTask(dies)
                .map(TaskDetails::status)
                .orElse(null) == TaskStatus.EXECUTED);

            // a batch, a second death discarded, the counts and the purge
            List<Long> batch = billingTasks.addTasks(List.of(DelayTask.builder(RUNS).build(),
                    DelayTask.builder(RUNS).build(), DelayTask.builder(DIES).build()));
            await().atMost(Duration.ofSeconds(10)).until(() -> billingRuns.ran(batch.get(0))
                    && billingRuns.ran(batch.get(1)) && billingTasks.findTask(batch.get(2))
                        .map(TaskDetails::status)
                        .orElse(null) == TaskStatus.DEAD);
            TaskStore billingStore = billing.getBean(TaskStore.class);
            assertThat(billingStore.countDeadByQueue()).containsExactly(entry(new QueueId(DIES, 0), 1L));
            assertThat(shipping.getBean(TaskStore.class).countDeadByQueue()).isEmpty();
            assertThat(billingStore.countLiveByQueue()).isEmpty();
            assertThat(shipping.getBean(TaskStore.class).countLiveByQueue()).containsOnlyKeys(new QueueId(RUNS, 0));
            assertThat(billingTasks.cancelTask(batch.get(2))).as("the dead task discarded").isTrue();
            assertThat(billingStore.countDeadByQueue()).isEmpty();
            assertThat(billingStore.purgeFinished(TaskStatus.EXECUTED, billingStore.currentTimeMillis() + 1, 100))
                .isEqualTo(3);

            // executed: order-1 and the two of the batch, purged; cancelled: order-2 and the discarded death
            assertThat(count("billing_taskinfo_logs")).isEqualTo(2);
            assertThat(count("shipping_taskinfo_logs")).isEqualTo(3);
            for (String plain : List.of("taskinfo", "taskinfo_logs", "taskinfo_store")) {
                assertThat(tableExists(plain)).as("table %s, without the prefix", plain).isFalse();
            }
        }));
    }

    @Test
    void eachPrefixHasAStoreIdOfItsOwnWhichTheDefaultRedisKeysStartWith() {
        // without delay-task.redis.key-prefix: the keys start with the id in the prefix's own taskinfo_store
        List<String> properties = this.backend.properties()
            .stream()
            .filter((property) -> !property.startsWith("delay-task.redis.key-prefix="))
            .toList();
        String[] ids = new String[2];
        try {
            storeIdRunner(properties, "orders_").run((orders) -> storeIdRunner(properties, "invoices_")
                .run((invoices) -> {
                    assertThat(orders).hasNotFailed();
                    assertThat(invoices).hasNotFailed();
                    ids[0] = orders.getBean(TaskStore.class).storeId();
                    ids[1] = invoices.getBean(TaskStore.class).storeId();
                    assertThat(ids[0]).isNotEqualTo(ids[1]);
                    assertThat(query("SELECT COUNT(*) FROM orders_taskinfo_store")).isEqualTo(1);
                    assertThat(query("SELECT COUNT(*) FROM invoices_taskinfo_store")).isEqualTo(1);
                }));
        }
        finally {
            for (String id : ids) {
                if (id != null) {
                    this.backend.deleteRedisKeys("delay-task:" + id);
                }
            }
        }
    }

    @Test
    void aPrefixThatIsNoPlainLowerCaseNameIsRefusedAtStartUp() {
        this.backend.applicationRunner()
            .withPropertyValues("delay-task.jdbc.table-prefix=Billing-")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("delay-task.jdbc.table-prefix is 'Billing-'"));
    }

    private ApplicationContextRunner storeIdRunner(List<String> properties, String tablePrefix) {
        return this.backend.applicationRunner(properties)
            .withPropertyValues("delay-task.jdbc.table-prefix=" + tablePrefix, "delay-task.listener.enabled=false");
    }

    private long count(String table) {
        return query("SELECT COUNT(*) FROM " + table);
    }

    private boolean tableExists(String table) {
        try (Connection connection = DriverManager.getConnection(this.backend.jdbcUrl(),
                this.backend.jdbcUsername(), "")) {
            DatabaseMetaData metaData = connection.getMetaData();
            String name = metaData.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
            try (ResultSet tables = metaData.getTables(connection.getCatalog(), null, name, null)) {
                return tables.next();
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private long query(String sql) {
        try (Connection connection = DriverManager.getConnection(this.backend.jdbcUrl(),
                this.backend.jdbcUsername(), ""); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HandlersConfiguration {

        @Bean
        Handlers handlers() {
            return new Handlers();
        }

    }

    static class Handlers {

        final Map<Long, List<Long>> runs = new ConcurrentHashMap<>();

        @DelayTaskListener(taskType = RUNS)
        void runs(DelayTask task) {
            record(task);
        }

        @DelayTaskListener(taskType = DIES, maxAttempts = 1)
        void dies(DelayTask task) {
            if (record(task) == 1) {
                throw new IllegalStateException("partner down for good");
            }
        }

        private int record(DelayTask task) {
            List<Long> of = this.runs.computeIfAbsent(task.getTaskId(), (id) -> new CopyOnWriteArrayList<>());
            of.add(System.currentTimeMillis());
            return of.size();
        }

        boolean ran(long taskId) {
            return this.runs.containsKey(taskId);
        }

    }

}
