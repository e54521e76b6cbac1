package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskException;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskContextPropagator;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.MDC;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Context carried from an add to its handler, against one backend: the tenant of an application's holder and MDC
 * entries captured on the adding thread of one instance are restored around every run of the handler on another,
 * retries included, and taken off the handler's thread after each run. Subclasses pick the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractContextPropagationTests {

    static final int ORDER_TIMEOUT = 61;

    static final int FAILS_ONCE = 62;

    static final int DIES_ONCE = 63;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(TenantContext.class, Handlers.class)
            .withPropertyValues("delay-task.context.mdc-keys=user,request", "delay-task.listener.poll-interval=50ms",
                    "delay-task.retry.initial-delay=50ms", "delay-task.listener.concurrency=1");
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @BeforeEach
    void clean() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            JdbcTemplate jdbc = jdbc(context);
            jdbc.update("DELETE FROM taskinfo");
            jdbc.update("DELETE FROM taskinfo_logs");
        });
        this.backend.deleteRedisKeys();
    }

    @Test
    void aHandlerOnAnotherInstanceRunsWithTheTenantAndMdcOfItsAddOnEveryAttemptAndLeavesTheThreadWithout() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((adder) -> this.runner.run((worker) -> {
            DelayTaskService service = adder.getBean(DelayTaskService.class);
            Tenants tenants = adder.getBean(Tenants.class);
            long failsOnce;
            long order;
            tenants.set("7");
            MDC.put("user", "alice\nof=accounts\\ops");
            MDC.put("request", "r-1");
            try {
                failsOnce = service.addTask(DelayTask.builder(FAILS_ONCE).build());
                tenants.set("8");
                MDC.remove("request");
                order = service.addTask(DelayTask.builder(ORDER_TIMEOUT).delay(Duration.ofMillis(200)).build());
            }
            finally {
                tenants.set(null);
                MDC.clear();
            }
            // added by a thread without a tenant or MDC, after the others ran on the one handler thread
            Handlers handlers = worker.getBean(Handlers.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> handlers.runsOf(order).size() == 1);
            long bare = service.addTask(DelayTask.builder(ORDER_TIMEOUT).build());
            await().atMost(Duration.ofSeconds(15))
                .until(() -> handlers.runsOf(failsOnce).size() == 2 && handlers.runsOf(bare).size() == 1);
            assertThat(handlers.runsOf(failsOnce))
                .containsExactly(new Run("7", "alice\nof=accounts\\ops", "r-1"),
                        new Run("7", "alice\nof=accounts\\ops", "r-1"));
            assertThat(handlers.runsOf(order)).containsExactly(new Run("8", "alice\nof=accounts\\ops", null));
            assertThat(handlers.runsOf(bare)).containsExactly(new Run(null, null, null));
            assertThat(handlers.threadOf(bare)).as("the one handler thread").isEqualTo(handlers.threadOf(order));
            await().atMost(Duration.ofSeconds(5)).until(() -> service.findTask(failsOnce)
                .map((task) -> task.status() == TaskStatus.EXECUTED).orElse(false));
        }));
    }

    @Test
    void aDeadTaskRequeuedRunsWithTheContextOfItsFirstAdd() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Tenants tenants = context.getBean(Tenants.class);
            long id;
            tenants.set("7");
            try {
                id = service.addTask(DelayTask.builder(DIES_ONCE).build());
            }
            finally {
                tenants.set(null);
            }
            await().atMost(Duration.ofSeconds(15)).until(() -> service.findTask(id)
                .map((task) -> task.status() == TaskStatus.DEAD).orElse(false));
            // requeued by an operator's thread, which has no tenant
            assertThat(service.requeueTask(id)).isTrue();
            Handlers handlers = context.getBean(Handlers.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> handlers.runsOf(id).size() == 2);
            assertThat(handlers.runsOf(id)).extracting(Run::tenant).containsExactly("7", "7");
            await().atMost(Duration.ofSeconds(5)).until(() -> service.findTask(id)
                .map((task) -> task.status() == TaskStatus.EXECUTED).orElse(false));
        });
    }

    @Test
    void onASchemaWhoseLogLacksTheColumnADeadTaskIsStillRequeuedAndRunsWithoutItsContext() {
        try {
            this.backend.execute("ALTER TABLE taskinfo_logs DROP COLUMN trace_context");
            this.runner.withPropertyValues("delay-task.jdbc.initialize-schema=never").run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                Tenants tenants = context.getBean(Tenants.class);
                long id;
                tenants.set("7");
                try {
                    id = service.addTask(DelayTask.builder(DIES_ONCE).build());
                }
                finally {
                    tenants.set(null);
                }
                await().atMost(Duration.ofSeconds(15)).until(() -> service.findTask(id)
                    .map((task) -> task.status() == TaskStatus.DEAD).orElse(false));
                assertThat(service.requeueTask(id)).isTrue();
                Handlers handlers = context.getBean(Handlers.class);
                await().atMost(Duration.ofSeconds(15)).until(() -> handlers.runsOf(id).size() == 2);
                assertThat(handlers.runsOf(id)).extracting(Run::tenant).containsExactly("7", null);
            });
        }
        finally {
            this.backend.execute("ALTER TABLE taskinfo_logs ADD COLUMN trace_context VARCHAR(1000) NULL");
        }
    }

    @Test
    void anAddWhoseContextDoesNotFitTheColumnIsRefusedAndStoresNothing() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            Tenants tenants = context.getBean(Tenants.class);
            tenants.set("t".repeat(800));
            try {
                assertThatExceptionOfType(DelayTaskException.class)
                    .isThrownBy(() -> context.getBean(DelayTaskService.class)
                        .addTask(DelayTask.builder(ORDER_TIMEOUT).build()))
                    .withMessageContaining("more than the 744 it may take of taskinfo.trace_context")
                    .withMessageContaining("[tenant]");
            }
            finally {
                tenants.set(null);
            }
            assertThat(jdbc(context).queryForObject("SELECT COUNT(*) FROM taskinfo_logs", Integer.class)).isZero();
        });
    }

    @Test
    void withNothingToCarryASchemaWithoutTheColumnServesAddsAndRuns() {
        try {
            this.backend.execute("ALTER TABLE taskinfo DROP COLUMN trace_context");
            this.backend.applicationRunner()
                .withUserConfiguration(Tenants.class, Handlers.class)
                .withPropertyValues("delay-task.jdbc.initialize-schema=never", "delay-task.listener.poll-interval=50ms")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    long id;
                    MDC.put("user", "alice");
                    try {
                        id = context.getBean(DelayTaskService.class)
                            .addTask(DelayTask.builder(ORDER_TIMEOUT).build());
                    }
                    finally {
                        MDC.clear();
                    }
                    Handlers handlers = context.getBean(Handlers.class);
                    await().atMost(Duration.ofSeconds(15)).until(() -> handlers.runsOf(id).size() == 1);
                    assertThat(handlers.runsOf(id)).containsExactly(new Run(null, null, null));
                });
        }
        finally {
            this.backend.execute("ALTER TABLE taskinfo ADD COLUMN trace_context VARCHAR(1000) NULL");
        }
    }

    @Test
    void withContextToCarryASchemaWithoutTheColumnFailsStartUpSayingWhatToAdd() {
        try {
            this.backend.execute("ALTER TABLE taskinfo DROP COLUMN trace_context");
            this.runner.withPropertyValues("delay-task.jdbc.initialize-schema=never").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("no column taskinfo.trace_context")
                    .hasMessageContaining("delay-task.context.mdc-keys");
            });
        }
        finally {
            this.backend.execute("ALTER TABLE taskinfo ADD COLUMN trace_context VARCHAR(1000) NULL");
        }
    }

    private static JdbcTemplate jdbc(AssertableApplicationContext context) {
        return new JdbcTemplate(context.getBean(DataSource.class));
    }

    record Run(String tenant, String user, String request) {
    }

    /** An application's tenant holder, which its request filter sets. */
    static class Tenants {

        private final ThreadLocal<String> current = new ThreadLocal<>();

        String get() {
            return this.current.get();
        }

        void set(String tenant) {
            if (tenant != null) {
                this.current.set(tenant);
            }
            else {
                this.current.remove();
            }
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class TenantContext {

        @Bean
        Tenants tenants() {
            return new Tenants();
        }

        @Bean
        TaskContextPropagator tenantPropagator(Tenants tenants) {
            return TaskContextPropagator.of("tenant", tenants::get, tenants::set, () -> tenants.set(null));
        }

    }

    static class Handlers {

        private final Tenants tenants;

        private final Map<Long, List<Run>> runs = new ConcurrentHashMap<>();

        private final Map<Long, String> threads = new ConcurrentHashMap<>();

        Handlers(Tenants tenants) {
            this.tenants = tenants;
        }

        @DelayTaskListener(taskType = ORDER_TIMEOUT)
        void orderTimeout(DelayTask task) {
            record(task);
        }

        @DelayTaskListener(taskType = DIES_ONCE, maxAttempts = 1)
        void diesOnce(DelayTask task) {
            if (record(task) == 1) {
                throw new IllegalStateException("partner down for good");
            }
        }

        @DelayTaskListener(taskType = FAILS_ONCE, maxAttempts = 2)
        void failsOnce(DelayTask task) {
            if (record(task) == 1) {
                throw new IllegalStateException("partner down");
            }
        }

        private int record(DelayTask task) {
            List<Run> of = this.runs.computeIfAbsent(task.getTaskId(), (id) -> new CopyOnWriteArrayList<>());
            of.add(new Run(this.tenants.get(), MDC.get("user"), MDC.get("request")));
            this.threads.put(task.getTaskId(), Thread.currentThread().getName());
            return of.size();
        }

        String threadOf(long taskId) {
            return this.threads.get(taskId);
        }

        List<Run> runsOf(long taskId) {
            return this.runs.getOrDefault(taskId, List.of());
        }

    }

}
