package io.github.delaytask.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskException;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link DelayTaskService#addOrReplaceTask}: the last call for a business key wins while its task waits, the task
 * keeps its id and fires once, at its new time with its new parameters; a running task is never replaced; concurrent
 * replacements leave one of them whole. Subclasses pick the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractReplaceByKeyTests {

    static final int RUNS = 1;

    static final int BLOCKS = 2;

    TestBackend backend;

    ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
        this.runner = this.backend.applicationRunner().withUserConfiguration(HandlersConfiguration.class);
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    private static String key() {
        return "digest-" + UUID.randomUUID();
    }

    @Test
    void aReplacementKeepsTheIdAndFiresOnceAtItsNewTimeWithItsNewParameters() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Handlers handlers = context.getBean(Handlers.class);
            String key = key();
            // within the preload window: Redis holds it at this time, which the replacement moves
            long first = service.addTask(DelayTask.builder(RUNS).bizKey(key).delay(Duration.ofMinutes(2))
                .parameters("first").build());
            long dueAt = System.currentTimeMillis() + 500;
            DelayTask replacement = DelayTask.builder(RUNS).bizKey(key).executeAt(Instant.ofEpochMilli(dueAt))
                .parameters("second").build();
            assertThat(service.addOrReplaceTask(replacement)).isEqualTo(first);
            assertThat(replacement.getTaskId()).isEqualTo(first);
            assertThat(service.findTask(first)).map(TaskDetails::executeTime).contains(Instant.ofEpochMilli(dueAt));
            await().atMost(Duration.ofSeconds(10)).until(() -> service.findTask(first)
                .map(TaskDetails::status)
                .orElse(null) == TaskStatus.EXECUTED);
            assertThat(handlers.runsOf(first)).containsExactly("second");
            assertThat(handlers.startOf(first)).isGreaterThanOrEqualTo(dueAt);
        });
    }

    @Test
    void withoutALiveTaskOfTheKeyItAdds() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Handlers handlers = context.getBean(Handlers.class);
            String key = key();
            long id = service.addOrReplaceTask(DelayTask.builder(RUNS).bizKey(key).parameters("only").build());
            await().atMost(Duration.ofSeconds(10)).until(() -> handlers.runsOf(id).size() == 1);
            assertThat(handlers.runsOf(id)).containsExactly("only");
            // the key is free again once its task finished: a new task
            await().atMost(Duration.ofSeconds(10)).until(() -> service.findTask(key).isEmpty());
            long next = service.addOrReplaceTask(DelayTask.builder(RUNS).bizKey(key).parameters("next").build());
            assertThat(next).isNotEqualTo(id);
            await().atMost(Duration.ofSeconds(10)).until(() -> handlers.runsOf(next).size() == 1);
        });
    }

    @Test
    void aTaskThatHasStartedIsNotReplacedAndRunsOnceAsItWas() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Handlers handlers = context.getBean(Handlers.class);
            String key = key();
            long id = service.addTask(DelayTask.builder(BLOCKS).bizKey(key).parameters("first").build());
            await().atMost(Duration.ofSeconds(10)).until(() -> handlers.runsOf(id).size() == 1);
            try {
                assertThat(service.addOrReplaceTask(DelayTask.builder(BLOCKS).bizKey(key).parameters("second")
                    .build())).isEqualTo(id);
            }
            finally {
                handlers.release.countDown();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> service.findTask(id)
                .map(TaskDetails::status)
                .orElse(null) == TaskStatus.EXECUTED);
            assertThat(handlers.runsOf(id)).containsExactly("first");
            assertThat(service.findTask(id).map(TaskDetails::parameters).map(String::new)).contains("first");
            assertThat(service.findTask(key)).as("a live task of the key").isEmpty();
        });
    }

    @Test
    void concurrentReplacementsOfOneKeyLeaveOneTaskCarryingOneReplacementWhole() throws Exception {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            String key = key();
            long base = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
            long id = service.addTask(DelayTask.builder(RUNS).bizKey(key).executeAt(Instant.ofEpochMilli(base))
                .parameters("0").build());
            int threads = 8;
            int each = 25;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Long>>> results = new ArrayList<>();
            try {
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    results.add(pool.submit(() -> {
                        start.await();
                        List<Long> ids = new ArrayList<>();
                        for (int i = 1; i <= each; i++) {
                            // each replacement's parameters name its execute time
                            int n = thread * each + i;
                            ids.add(service.addOrReplaceTask(DelayTask.builder(RUNS).bizKey(key)
                                .executeAt(Instant.ofEpochMilli(base + n * 1000L))
                                .parameters(Integer.toString(n))
                                .build()));
                        }
                        return ids;
                    }));
                }
                start.countDown();
                for (Future<List<Long>> result : results) {
                    assertThat(result.get(60, TimeUnit.SECONDS)).containsOnly(id);
                }
            }
            finally {
                pool.shutdownNow();
            }
            TaskDetails details = service.findTask(key).orElseThrow();
            assertThat(details.taskId()).isEqualTo(id);
            int n = Integer.parseInt(new String(details.parameters(), StandardCharsets.UTF_8));
            assertThat(n).isBetween(1, threads * each);
            assertThat(details.executeTime()).isEqualTo(Instant.ofEpochMilli(base + n * 1000L));
            // the live row says the same as the log
            assertThat(liveRow(key)).containsExactly(Long.toString(id), Long.toString(base + n * 1000L),
                    Integer.toString(n));
        });
    }

    @Test
    void aReplacementInACallersTransactionWhoseSnapshotPredatesTheTaskReplacesItAndCommitsWithIt() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            TransactionTemplate transaction = new TransactionTemplate(
                    context.getBean(PlatformTransactionManager.class));
            String key = key();
            long[] added = new long[1];
            long replaced = transaction.execute((status) -> {
                // the snapshot of REPEATABLE READ (MySQL, MariaDB) begins here, before the task is committed
                assertThat(service.findTask(key)).isEmpty();
                Thread adder = new Thread(() -> added[0] = service
                    .addTask(DelayTask.builder(RUNS).bizKey(key).delay(Duration.ofHours(1)).parameters("first").build()));
                adder.start();
                try {
                    adder.join(10_000);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                assertThat(adder.isAlive()).isFalse();
                return service.addOrReplaceTask(DelayTask.builder(RUNS).bizKey(key).delay(Duration.ofHours(2))
                    .parameters("second").build());
            });
            assertThat(replaced).isEqualTo(added[0]);
            assertThat(service.findTask(key).map(TaskDetails::parameters).map(String::new)).contains("second");
        });
    }

    @Test
    void aReplacementInACallersTransactionWhoseSnapshotStillShowsACancelledTaskAddsANewOne() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            TransactionTemplate transaction = new TransactionTemplate(
                    context.getBean(PlatformTransactionManager.class));
            String key = key();
            long cancelled = service.addTask(DelayTask.builder(RUNS).bizKey(key).delay(Duration.ofHours(1)).build());
            long added = transaction.execute((status) -> {
                // the snapshot of REPEATABLE READ (MySQL, MariaDB) begins here, with the task live
                assertThat(service.findTask(key)).isPresent();
                Thread canceller = new Thread(() -> service.cancelTask(cancelled));
                canceller.start();
                try {
                    canceller.join(10_000);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                assertThat(canceller.isAlive()).isFalse();
                return service.addOrReplaceTask(DelayTask.builder(RUNS).bizKey(key).delay(Duration.ofHours(2))
                    .parameters("new").build());
            });
            assertThat(added).isNotEqualTo(cancelled);
            assertThat(service.findTask(cancelled)).map(TaskDetails::status).contains(TaskStatus.CANCELLED);
            assertThat(service.findTask(key).map(TaskDetails::taskId)).contains(added);
        });
    }

    @Test
    void aReplacementOfAnotherTypeOrWithoutAKeyIsRefused() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            String key = key();
            long id = service.addTask(DelayTask.builder(RUNS).bizKey(key).delay(Duration.ofHours(1)).build());
            assertThatExceptionOfType(DelayTaskException.class)
                .isThrownBy(() -> service.addOrReplaceTask(DelayTask.builder(BLOCKS).bizKey(key).build()))
                .withMessageContaining("The live task " + id + " with key " + key + " is of type " + RUNS);
            assertThatIllegalArgumentException()
                .isThrownBy(() -> service.addOrReplaceTask(DelayTask.builder(RUNS).build()))
                .withMessageContaining("business key");
            assertThatIllegalArgumentException()
                .isThrownBy(() -> service.addOrReplaceTask(DelayTask.builder(RUNS).bizKey(key).taskId(7).build()))
                .withMessageContaining("takes no task id");
        });
    }

    /** The live row of the key, read past the starter: id, execute time and parameters. */
    private List<String> liveRow(String key) {
        try (Connection connection = DriverManager.getConnection(this.backend.jdbcUrl(),
                this.backend.jdbcUsername(), "");
                PreparedStatement statement = connection
                    .prepareStatement("SELECT task_id, execute_time, parameters FROM taskinfo WHERE biz_key = ?")) {
            statement.setString(1, key);
            try (ResultSet rows = statement.executeQuery()) {
                List<String> row = new ArrayList<>();
                while (rows.next()) {
                    row.add(Long.toString(rows.getLong(1)));
                    row.add(Long.toString(rows.getLong(2)));
                    row.add(new String(rows.getBytes(3), StandardCharsets.UTF_8));
                }
                return row;
            }
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

        final CountDownLatch release = new CountDownLatch(1);

        private final Map<Long, List<String>> runs = new ConcurrentHashMap<>();

        private final Map<Long, Long> starts = new ConcurrentHashMap<>();

        @DelayTaskListener(taskType = RUNS)
        void runs(DelayTask task) {
            record(task);
        }

        @DelayTaskListener(taskType = BLOCKS)
        void blocks(DelayTask task) throws InterruptedException {
            record(task);
            this.release.await(30, TimeUnit.SECONDS);
        }

        private void record(DelayTask task) {
            this.starts.putIfAbsent(task.getTaskId(), System.currentTimeMillis());
            this.runs.computeIfAbsent(task.getTaskId(), (id) -> new CopyOnWriteArrayList<>())
                .add(task.getParametersAsString());
        }

        List<String> runsOf(long taskId) {
            return this.runs.getOrDefault(taskId, List.of());
        }

        long startOf(long taskId) {
            return this.starts.get(taskId);
        }

    }

}
