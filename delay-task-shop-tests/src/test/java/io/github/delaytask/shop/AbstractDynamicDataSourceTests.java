package io.github.delaytask.shop;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskException;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.actuate.DelayTasksEndpoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.embedded.RedisServer;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The starter in a shop whose data source is dynamic-datasource's, with a master and a slave that both hold the
 * starter's tables: the starter writes to the master from any {@code @DS} method, a caller's transaction on the
 * master covers its add, one begun on the slave is refused rather than given the add, a {@code @DSTransactional} one
 * does not hold it, and {@code delay-task.jdbc.data-source} points it at the slave instead. A task carries the
 * tenant that added it to its handler, whose own mapper the strict tenant line scopes. Subclasses pick the
 * databases; Redis is an embedded one, or the real one under a prefix of the test's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractDynamicDataSourceTests {

    private static final String TASKS = "SELECT COUNT(*) FROM taskinfo_logs";

    private ShopDatabases databases;

    private RedisServer redis;

    private final String keyPrefix = "shop-test-" + UUID.randomUUID().toString().substring(0, 8);

    abstract ShopDatabases createDatabases();

    /** Whether to start an embedded Redis rather than use the one on 127.0.0.1:6379. */
    abstract boolean embeddedRedis();

    @BeforeAll
    void start() throws IOException {
        this.databases = createDatabases().start();
        if (embeddedRedis()) {
            this.redis = RedisServer.newRedisServer().bind("127.0.0.1").port(freePort()).setting("save \"\"")
                .setting("appendonly no").build();
            this.redis.start();
        }
    }

    @AfterAll
    void stop() throws IOException {
        if (this.databases != null) {
            this.databases.close();
        }
        if (this.redis != null) {
            this.redis.stop();
        }
    }

    @Test
    void aTaskAddedFromADsSlaveMethodIsStoredInTheMasterAndRuns() {
        run((shop) -> {
            long id = shop.getBean(OrderTimeouts.class).addFromSlave("order-slave-read");
            await().atMost(Duration.ofSeconds(15))
                .until(() -> shop.getBean(RanTimeouts.class).orders().contains("order-slave-read"));
            await().atMost(Duration.ofSeconds(5)).until(() -> status(shop, id) == TaskStatus.EXECUTED);
            assertThat(this.databases.count("master", TASKS + " WHERE task_id = " + id)).isOne();
            assertThat(this.databases.count("slave", TASKS)).as("tasks in the slave").isZero();
        });
    }

    @Test
    void aCallersTransactionOnTheMasterCoversTheAdd() {
        run((shop) -> {
            OrderTimeouts orders = shop.getBean(OrderTimeouts.class);
            assertThatIllegalStateException().isThrownBy(() -> orders.addInMasterTransaction("order-rolled-back", true));
            assertThatIllegalStateException()
                .isThrownBy(() -> orders.addWithoutKeyInMasterTransaction("keyless-rolled-back", true));
            assertThat(this.databases.count("master", TASKS)).as("tasks after the rollbacks").isZero();
            long id = orders.addInMasterTransaction("order-committed", false);
            await().atMost(Duration.ofSeconds(15)).until(() -> status(shop, id) == TaskStatus.EXECUTED);
            assertThat(shop.getBean(DelayTaskService.class).findTask("order-rolled-back")).isEmpty();
            assertThat(shop.getBean(RanTimeouts.class).orders()).containsExactly("order-committed");
            assertThat(this.databases.count("slave", TASKS)).as("tasks in the slave").isZero();
        });
    }

    @Test
    void anAddInATransactionBegunOnTheSlaveIsRefusedWithAMessageAndStoresNothing() {
        run((shop) -> {
            OrderTimeouts orders = shop.getBean(OrderTimeouts.class);
            assertThatExceptionOfType(DelayTaskException.class)
                .isThrownBy(() -> orders.addInSlaveTransaction("order-of-a-slave-transaction", false))
                .havingRootCause()
                .withMessageContaining("delay-task keeps its tasks in dynamic-datasource's primary data source")
                .withMessageContaining("begun on another data source of dynamic-datasource");
            assertThat(this.databases.count("master", TASKS)).as("tasks in the master").isZero();
            assertThat(this.databases.count("slave", TASKS)).as("tasks in the slave").isZero();
            // the thread is left as it was: an add outside the transaction works
            long id = orders.addFromSlave("order-after-the-refusal");
            await().atMost(Duration.ofSeconds(15)).until(() -> status(shop, id) == TaskStatus.EXECUTED);
        });
    }

    @Test
    void aDsTransactionalTransactionDoesNotHoldTheAddWhichIsStoredInTheMasterAtOnce() {
        run((shop) -> {
            OrderTimeouts orders = shop.getBean(OrderTimeouts.class);
            assertThatIllegalStateException()
                .isThrownBy(() -> orders.addInDsTransaction("order-of-a-failed-ds-transaction", true));
            long committed = orders.addInDsTransaction("order-of-a-ds-transaction", false);
            await().atMost(Duration.ofSeconds(15)).until(() -> shop.getBean(RanTimeouts.class).orders()
                .containsAll(Set.of("order-of-a-failed-ds-transaction", "order-of-a-ds-transaction")));
            await().atMost(Duration.ofSeconds(5)).until(() -> status(shop, committed) == TaskStatus.EXECUTED);
            assertThat(this.databases.count("master", TASKS + " WHERE biz_key LIKE 'order-of-a-%'")).isEqualTo(2);
            assertThat(this.databases.count("slave", TASKS)).as("tasks in the slave").isZero();
        });
    }

    @Test
    void anOrdersTimeoutRunsForTheTenantThatPlacedItThroughTheShopsOwnTenantScopedMapper() {
        run((shop) -> {
            UnpaidOrders orders = shop.getBean(UnpaidOrders.class);
            long timeout;
            try {
                ShopTenant.set(7L);
                timeout = orders.place("A-1", Duration.ofMillis(200));
                ShopTenant.set(8L);
                orders.place("A-1", Duration.ofHours(1));
            }
            finally {
                ShopTenant.set(null);
            }
            // the handler's mapper throws on a thread without a tenant, so the task runs only with the one carried
            await().atMost(Duration.ofSeconds(15)).until(() -> status(shop, timeout) == TaskStatus.EXECUTED);
            try {
                ShopTenant.set(7L);
                assertThat(orders.status("A-1")).as("tenant 7's order").isEqualTo("CANCELLED");
                ShopTenant.set(8L);
                assertThat(orders.status("A-1")).as("tenant 8's order of the same number").isEqualTo("UNPAID");
            }
            finally {
                ShopTenant.set(null);
            }
            assertThat(this.databases.count("master", "SELECT COUNT(*) FROM shop_order")).isEqualTo(2);
        });
    }

    @ParameterizedTest(name = "tenant handler: {0}")
    @ValueSource(strings = { "strict", "default" })
    void theWholeContractWorksUnderTheShopsPluginsAndDataSources(String tenantHandler) {
        run((shop) -> {
            DelayTaskService tasks = shop.getBean(DelayTaskService.class);
            ShopContract contract = shop.getBean(ShopContract.class);
            long cancelled;
            long keyed;
            long moved;
            long failing;
            // a request of tenant 7 adds, and cancels one of its tasks
            ShopTenant.set(7L);
            try {
                // due soon, and in Redis, but not before the cancels below on a busy machine
                cancelled = tasks.addTask(DelayTask.builder(ShopContract.NOTICE).delay(Duration.ofSeconds(5)).build());
                keyed = tasks.addTask(DelayTask.builder(ShopContract.NOTICE).delay(Duration.ofSeconds(5))
                    .bizKey("notice-7-a").build());
                moved = tasks.addTask(DelayTask.builder(ShopContract.NOTICE).delay(Duration.ofHours(1))
                    .bizKey("notice-7-b").build());
                failing = tasks.addTask(DelayTask.builder(ShopContract.PARTNER_CALL).build());
                assertThat(tasks.cancelTask(cancelled)).as("cancel by id").isTrue();
            }
            finally {
                ShopTenant.set(null);
            }
            // a callback without a tenant cancels, finds and reschedules by key
            assertThat(tasks.cancelTask("notice-7-a")).as("cancel by key").isTrue();
            assertThat(tasks.findTask("notice-7-b")).as("find by key").get()
                .extracting(TaskDetails::taskId).isEqualTo(moved);
            assertThat(tasks.rescheduleTask(moved, Instant.now().plusMillis(500))).as("reschedule").isTrue();
            await().atMost(Duration.ofSeconds(15)).until(() -> status(shop, moved) == TaskStatus.EXECUTED);
            assertThat(contract.noticeTenants(moved)).as("ran once, for its tenant").containsExactly(7L);
            assertThat(contract.noticeTenants(cancelled)).isEmpty();
            assertThat(contract.noticeTenants(keyed)).isEmpty();
            assertThat(status(shop, cancelled)).isEqualTo(TaskStatus.CANCELLED);
            assertThat(status(shop, keyed)).isEqualTo(TaskStatus.CANCELLED);

            // retries to DEAD, heard as an event, requeued, dead again, discarded
            await().atMost(Duration.ofSeconds(15)).until(() -> status(shop, failing) == TaskStatus.DEAD);
            assertThat(contract.partnerFailures(failing)).isEqualTo(2);
            assertThat(tasks.findTask(failing).orElseThrow().lastError()).contains("partner down");
            await().atMost(Duration.ofSeconds(5)).until(() -> contract.deaths()
                .stream()
                .anyMatch((death) -> death.task().taskId() == failing));
            assertThat(tasks.requeueTask(failing)).as("requeue").isTrue();
            await().atMost(Duration.ofSeconds(15))
                .until(() -> contract.partnerFailures(failing) == 4 && status(shop, failing) == TaskStatus.DEAD);
            assertThat(tasks.cancelTask(failing)).as("discard the dead task").isTrue();
            assertThat(status(shop, failing)).isEqualTo(TaskStatus.CANCELLED);

            // a paused queue holds its due task until resumed
            assertThat(tasks.pauseQueue(ShopContract.NOTICE, 0)).isTrue();
            long held;
            ShopTenant.set(8L);
            try {
                held = tasks.addTask(DelayTask.builder(ShopContract.NOTICE).build());
            }
            finally {
                ShopTenant.set(null);
            }
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> contract.noticeTenants(held).isEmpty());
            assertThat(tasks.resumeQueue(ShopContract.NOTICE, 0)).isTrue();
            await().atMost(Duration.ofSeconds(15)).until(() -> contract.noticeTenants(held).equals(List.of(8L)));

            // the endpoint an operator reads
            assertThat(shop.getBean(DelayTasksEndpoint.class).delayTasks().queues())
                .anySatisfy((queue) -> {
                    assertThat(queue.taskType()).isEqualTo(ShopContract.NOTICE);
                    assertThat(queue.name()).isEqualTo("notice");
                    assertThat(queue.paused()).isFalse();
                });

            // the nightly job runs on one instance at a time: a second call while the first holds the lock is
            // skipped
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> report(contract, started, release));
            await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0);
            assertThat(report(contract, new CountDownLatch(1), new CountDownLatch(0))).as("skipped").isNull();
            release.countDown();
            assertThat(first).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("report 1");
        }, "shop.tenant-handler=" + tenantHandler, "management.endpoints.web.exposure.include=health,delaytasks");
    }

    @Test
    void locksKeptInTheDatabaseAreInTheStarterDataSourceAndHoldTheNightlyJobToOneRunAtATime() {
        run((shop) -> {
            ShopContract contract = shop.getBean(ShopContract.class);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> report(contract, started, release));
            await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0);
            assertThat(report(contract, new CountDownLatch(1), new CountDownLatch(0))).as("skipped").isNull();
            String held = "SELECT COUNT(*) FROM taskinfo_lock WHERE name = 'shop-nightly-report' AND run_outcome = ";
            assertThat(this.databases.count("slave", held + "'RUNNING'")).as("the lock in the slave").isOne();
            assertThat(this.databases.count("master", "SELECT COUNT(*) FROM taskinfo_lock")).isZero();
            release.countDown();
            assertThat(first).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("report 1");
            assertThat(this.databases.count("slave", held + "'SUCCEEDED'")).as("its run recorded").isOne();
            assertThat(report(contract, new CountDownLatch(1), new CountDownLatch(0))).as("released")
                .isEqualTo("report 2");
        }, "delay-task.lock.store=database", "delay-task.jdbc.data-source=slave");
    }

    private static String report(ShopContract contract, CountDownLatch started, CountDownLatch release) {
        try {
            return contract.nightlyReport(started, release);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    @Test
    void thePropertyPointsTheStarterAtTheSlave() {
        run((shop) -> {
            long id = shop.getBean(OrderTimeouts.class).addFromSlave("order-kept-in-the-slave");
            await().atMost(Duration.ofSeconds(15)).until(() -> status(shop, id) == TaskStatus.EXECUTED);
            assertThat(this.databases.count("slave", TASKS + " WHERE task_id = " + id)).isOne();
            assertThat(this.databases.count("master", TASKS + " WHERE task_id = " + id)).isZero();
        }, "delay-task.jdbc.data-source=slave");
    }

    @Test
    void aNameThatIsNeitherABeanNorADataSourceOfTheRoutingOneFailsStartUpNamingTheProperty() {
        assertThatException().isThrownBy(() -> start(this.keyPrefix, "delay-task.jdbc.data-source=reports").close())
            .withStackTraceContaining("delay-task.jdbc.data-source is 'reports'")
            .withStackTraceContaining("[master, slave]");
    }

    /** Run the shop with the given extra properties, from empty tables, and remove its Redis keys afterwards. */
    private void run(Consumer<ConfigurableApplicationContext> test, String... extra) {
        String prefix = this.keyPrefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        try (ConfigurableApplicationContext shop = start(prefix, extra)) {
            this.databases.clear();
            try {
                test.accept(shop);
            }
            finally {
                StringRedisTemplate redis = shop.getBean(StringRedisTemplate.class);
                Set<String> keys = redis.keys(prefix + ":*");
                if (keys != null && !keys.isEmpty()) {
                    redis.delete(keys);
                }
            }
        }
    }

    private ConfigurableApplicationContext start(String keyPrefix, String... extra) {
        List<String> properties = new ArrayList<>(this.databases.properties());
        properties.add("spring.data.redis.host=127.0.0.1");
        properties.add("spring.data.redis.port=" + ((this.redis != null) ? this.redis.ports().get(0) : 6379));
        properties.add("delay-task.redis.key-prefix=" + keyPrefix);
        properties.add("delay-task.jdbc.initialize-schema=always");
        properties.add("delay-task.listener.poll-interval=50ms");
        properties.addAll(List.of(extra));
        return new SpringApplicationBuilder(ShopApplication.class).web(WebApplicationType.NONE)
            .properties(properties.toArray(new String[0]))
            .run();
    }

    private static TaskStatus status(ConfigurableApplicationContext shop, long id) {
        return shop.getBean(DelayTaskService.class).findTask(id).map(TaskDetails::status).orElse(null);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

}
