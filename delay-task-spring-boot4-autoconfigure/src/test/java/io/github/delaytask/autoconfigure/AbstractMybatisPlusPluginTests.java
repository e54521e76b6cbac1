package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

import com.baomidou.mybatisplus.extension.plugins.pagination.Page;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.autoconfigure.pluginhost.HostOrder;
import io.github.delaytask.autoconfigure.pluginhost.HostOrderMapper;
import io.github.delaytask.autoconfigure.pluginhost.HostTenant;
import io.github.delaytask.autoconfigure.pluginhost.PluginHostApplication;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * The starter inside an application whose {@code MybatisPlusInterceptor} carries the plugins MyBatis-Plus shops
 * install (tenant line, data permission, dynamic table name, pagination, illegal SQL, block attack), whose handlers
 * know nothing of the starter's tables: the starter's statements are its own, on the caller's thread and on the
 * starter's threads, whichever shape the tenant handler has when no tenant is set (a default tenant, or an
 * exception), while the application's own mapper keeps every plugin; nor do the application's global MyBatis-Plus
 * settings change them. Subclasses pick the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractMybatisPlusPluginTests {

    static final int RECORDED = 61;

    static final int FAILING = 62;

    private static final long TENANT = 7;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    /** Whether the application installs the illegal-SQL plugin, whose index check works on this backend. */
    protected boolean checksIllegalSql() {
        return true;
    }

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
        this.backend.execute("CREATE TABLE host_order" + PluginHostApplication.TABLE_SUFFIX
                + " (id BIGINT PRIMARY KEY, tenant_id BIGINT NOT NULL, dept_id BIGINT NOT NULL, name VARCHAR(64))",
                "CREATE INDEX host_order_tenant ON host_order" + PluginHostApplication.TABLE_SUFFIX + " (tenant_id)");
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(PluginHostApplication.class, Listeners.class)
            .withPropertyValues("delay-task.retry.initial-delay=50ms", "delay-task.listener.poll-interval=50ms",
                    "host.illegal-sql=" + checksIllegalSql());
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @BeforeEach
    void clean() {
        this.backend.execute("DELETE FROM host_order" + PluginHostApplication.TABLE_SUFFIX);
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "host.tenant-handler=default")
            .run((context) -> {
                JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                jdbc.update("DELETE FROM taskinfo");
                jdbc.update("DELETE FROM taskinfo_logs");
            });
        this.backend.deleteRedisKeys();
    }

    @ParameterizedTest(name = "tenant handler: {0}")
    @ValueSource(strings = { "default", "strict" })
    void cancelsReschedulesAndLookupsByKeyWorkAndACancelledTaskNeverRuns(String tenantHandler) {
        this.runner.withPropertyValues("host.tenant-handler=" + tenantHandler).run((context) -> {
            assertThat(context).hasNotFailed();
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            AtomicLong cancelled = new AtomicLong();
            AtomicLong keyed = new AtomicLong();
            AtomicLong moved = new AtomicLong();
            // a request of the tenant adds and cancels; a payment callback without a tenant cancels by key
            HostTenant.runAs(TENANT, () -> {
                cancelled.set(service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(300)).build()));
                keyed.set(service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(300))
                    .bizKey("order-1").build()));
                moved.set(service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofHours(1))
                    .bizKey("order-2").build()));
                assertThat(service.cancelTask(cancelled.get())).as("cancel by id").isTrue();
            });
            assertThat(service.cancelTask("order-1")).as("cancel by key").isTrue();
            assertThat(service.findTask("order-2")).as("find by key").get()
                .satisfies((task) -> assertThat(task.taskId()).isEqualTo(moved.get()))
                .extracting(TaskDetails::status).isEqualTo(TaskStatus.SCHEDULED);
            HostTenant.runAs(TENANT, () -> assertThat(service
                .rescheduleTask(moved.get(), Instant.now().plusMillis(800))).as("reschedule").isTrue());
            await().atMost(Duration.ofSeconds(15)).until(() -> status(service, moved.get()) == TaskStatus.EXECUTED);
            assertThat(listeners.runs).as("tasks run").containsOnlyKeys(moved.get());
            assertThat(status(service, cancelled.get())).isEqualTo(TaskStatus.CANCELLED);
            assertThat(status(service, keyed.get())).isEqualTo(TaskStatus.CANCELLED);
        });
    }

    @ParameterizedTest(name = "tenant handler: {0}")
    @ValueSource(strings = { "default", "strict" })
    void aFailingHandlerRetriesToDeadAndTheDeadTaskIsRequeuedThenDiscarded(String tenantHandler) {
        this.runner.withPropertyValues("host.tenant-handler=" + tenantHandler).run((context) -> {
            assertThat(context).hasNotFailed();
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            AtomicLong id = new AtomicLong();
            HostTenant.runAs(TENANT, () -> id.set(service.addTask(DelayTask.builder(FAILING).build())));
            await().atMost(Duration.ofSeconds(15)).until(() -> status(service, id.get()) == TaskStatus.DEAD);
            TaskDetails dead = service.findTask(id.get()).orElseThrow();
            assertThat(dead.attempts()).isEqualTo(2);
            assertThat(dead.lastError()).contains("always fails");
            assertThat(listeners.failures.get(id.get())).hasValue(2);
            assertThat(service.findDeadTasks(0, 10)).extracting(TaskDetails::taskId).containsExactly(id.get());
            assertThat(service.findDeadTasksNewestFirst(0, 10)).extracting(TaskDetails::taskId)
                .containsExactly(id.get());
            assertThat(service.findDeadTasksNewestFirst(0, 10, false)).extracting(TaskDetails::taskId)
                .containsExactly(id.get());
            assertThat(service.requeueTask(id.get())).as("requeue").isTrue();
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.failures.get(id.get()).get() == 4
                    && status(service, id.get()) == TaskStatus.DEAD);
            assertThat(service.cancelTask(id.get())).as("discard the dead task").isTrue();
            assertThat(status(service, id.get())).isEqualTo(TaskStatus.CANCELLED);
        });
    }

    @ParameterizedTest(name = "tenant handler: {0}")
    @ValueSource(strings = { "default", "strict" })
    void theStartersOptimisticLockStillRefusesAStaleVersion(String tenantHandler) {
        this.runner.withPropertyValues("host.tenant-handler=" + tenantHandler, "delay-task.listener.enabled=false")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                DelayTaskService service = context.getBean(DelayTaskService.class);
                TaskStore store = context.getBean(TaskStore.class);
                long id = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofHours(1)).build());
                StoredTask stale = store.findLive(List.of(id)).get(0);
                assertThat(service.rescheduleTask(id, Instant.now().plus(Duration.ofHours(2)))).isTrue();
                StoredTask current = store.findLive(List.of(id)).get(0);
                assertThat(current.version()).isGreaterThan(stale.version());
                assertThat(store.unclaim(stale)).as("a change of the stale version").isFalse();
                assertThat(store.unclaim(current)).as("a change of the current version").isTrue();
            });
    }

    @ParameterizedTest(name = "tenant handler: {0}")
    @ValueSource(strings = { "default", "strict" })
    void theApplicationsOwnMapperKeepsEveryPlugin(String tenantHandler) {
        this.runner.withPropertyValues("host.tenant-handler=" + tenantHandler, "delay-task.listener.enabled=false")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                HostOrderMapper orders = context.getBean(HostOrderMapper.class);
                HostTenant.runAs(TENANT, () -> {
                    orders.insert(new HostOrder(1, 10, "visible"));
                    orders.insert(new HostOrder(2, 30, "another department"));
                    orders.insert(new HostOrder(3, 20, "visible too"));
                });
                HostTenant.runAs(TENANT + 1, () -> orders.insert(new HostOrder(4, 10, "another tenant")));
                HostTenant.runAs(TENANT, () -> {
                    assertThat(orders.selectList(null)).as("tenant line and data permission")
                        .extracting(HostOrder::getId).containsExactlyInAnyOrder(1L, 3L);
                    Page<HostOrder> page = orders.selectPage(new Page<>(1, 1), null);
                    assertThat(page.getTotal()).as("pagination's count").isEqualTo(2);
                    assertThat(page.getRecords()).as("pagination's page").hasSize(1);
                });
                JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                assertThat(jdbc.queryForList("SELECT tenant_id FROM host_order" + PluginHostApplication.TABLE_SUFFIX
                        + " ORDER BY id", Long.class)).as("dynamic table name and the tenant of each insert")
                    .containsExactly(TENANT, TENANT, TENANT, TENANT + 1);
                if (tenantHandler.equals("strict")) {
                    assertThatException().as("the application's own query without a tenant")
                        .isThrownBy(() -> orders.selectList(null))
                        .withRootCauseInstanceOf(IllegalStateException.class)
                        .withStackTraceContaining("no tenant");
                }
            });
    }

    @Test
    void theApplicationsGlobalSettingsLeaveTheStartersEntitiesAlone() {
        // settings shops use for their own tables: updates that write null fields too, no camel-case mapping, a
        // global table prefix and a logical-delete column
        this.runner.withPropertyValues("host.tenant-handler=default",
                "mybatis-plus.global-config.db-config.update-strategy=always",
                "mybatis-plus.configuration.map-underscore-to-camel-case=false",
                "mybatis-plus.global-config.db-config.table-prefix=app_",
                "mybatis-plus.global-config.db-config.logic-delete-field=version").run((context) -> {
                    assertThat(context).hasNotFailed();
                    DelayTaskService service = context.getBean(DelayTaskService.class);
                    Listeners listeners = context.getBean(Listeners.class);
                    long moved = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofHours(1))
                        .parameters("kept").build());
                    long cancelled = service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofHours(1))
                        .bizKey("order-3").build());
                    assertThat(service.rescheduleTask(moved, Instant.now().plusMillis(300))).isTrue();
                    assertThat(service.cancelTask("order-3")).isTrue();
                    await().atMost(Duration.ofSeconds(15)).until(() -> status(service, moved) == TaskStatus.EXECUTED);
                    assertThat(listeners.parameters).containsEntry(moved, "kept");
                    assertThat(status(service, cancelled)).isEqualTo(TaskStatus.CANCELLED);
                    assertThat(service.findTask(moved)).get().extracting(TaskDetails::taskType).isEqualTo(RECORDED);
                });
    }

    private static TaskStatus status(DelayTaskService service, long id) {
        return service.findTask(id).map(TaskDetails::status).orElse(null);
    }

    static class Listeners {

        final Map<Long, AtomicLong> runs = new ConcurrentHashMap<>();

        final Map<Long, String> parameters = new ConcurrentHashMap<>();

        final Map<Long, AtomicLong> failures = new ConcurrentHashMap<>();

        @DelayTaskListener(taskType = RECORDED)
        void record(DelayTask task) {
            this.runs.computeIfAbsent(task.getTaskId(), (id) -> new AtomicLong()).incrementAndGet();
            if (task.getParameters() != null) {
                this.parameters.put(task.getTaskId(), task.getParametersAsString());
            }
        }

        @DelayTaskListener(taskType = FAILING, maxAttempts = 2, initialDelay = "50ms")
        void fail(DelayTask task) {
            this.failures.computeIfAbsent(task.getTaskId(), (id) -> new AtomicLong()).incrementAndGet();
            throw new IllegalStateException("always fails");
        }

    }

}
