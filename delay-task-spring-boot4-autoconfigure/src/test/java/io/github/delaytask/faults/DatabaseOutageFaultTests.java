package io.github.delaytask.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskException;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.testsupport.TcpProxy;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The database unreachable, through a proxy the test cuts, with the real PostgreSQL and Redis behind: a task that
 * cannot be stored is refused and leaves nothing in Redis, and tasks whose acknowledgement cannot be written for a
 * while are recorded once the database is back, within their lease, and run once.
 */
@Tag("faults")
class DatabaseOutageFaultTests {

    private static final int NO_LISTENER = 9;

    private static final int LATCHED = 2;

    private static final Duration LEASE = Duration.ofSeconds(8);

    private static final int LATCHED_TASKS = 20;

    private TestBackend backend;

    private FaultRuns runs;

    private TcpProxy proxy;

    @BeforeEach
    void startProxyAndCreateSchema() {
        this.backend = TestBackend.postgreSql();
        this.runs = new FaultRuns(this.backend);
        this.runs.createSchema("postgresql");
        this.proxy = TcpProxy.start("127.0.0.1", 5432);
    }

    @AfterEach
    void stopProxyAndDropSchema() {
        try {
            this.proxy.close();
        }
        finally {
            this.backend.close();
        }
    }

    @Test
    void addTaskThrowsAndRedisHoldsNothingOfTheTaskWhileTheDatabaseIsUnreachable() {
        FaultApp.runner(properties()).withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            QueueAdministration queues = context.getBean(QueueAdministration.class);
            QueueId queue = new QueueId(NO_LISTENER, 0);
            // due in a minute, within the preload window: the tasks stay in the queue's future set
            service.addTask(DelayTask.builder(NO_LISTENER).taskId(1L).delay(Duration.ofMinutes(1)).build());
            // its caller returned at the commit: the hand-off follows
            await().atMost(Duration.ofSeconds(10)).until(() -> queues.sizes(queue)[0] == 1);
            this.proxy.cut();
            // the first add finds pooled connections the cut broke, the next ones find none to open
            List<Throwable> failures = new ArrayList<>();
            for (long taskId = 2; taskId <= 4; taskId++) {
                try {
                    service.addTask(DelayTask.builder(NO_LISTENER).taskId(taskId).delay(Duration.ofMinutes(1)).build());
                }
                catch (RuntimeException ex) {
                    failures.add(ex);
                }
            }
            long[] sizesWhileDown = queues.sizes(queue);
            assertThatExceptionOfType(DelayTaskException.class).as("cancel").isThrownBy(() -> service.cancelTask(1L));
            this.proxy.restore();
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> service.findTask(1L).isPresent());
            long stored = this.runs.count("SELECT COUNT(*) FROM taskinfo_logs WHERE task_id <> 1");
            System.out.println("fault: database-down-during-add tasks=3 lost=0 duplicates=0 refused="
                    + failures.size() + " stored=" + stored + " in-redis=" + (sizesWhileDown[0] - 1) + " exceptions="
                    + failures.stream().map((ex) -> ex.getClass().getSimpleName()).toList());
            assertThat(failures).as("adds while the database is down").hasSize(3)
                .allSatisfy((ex) -> assertThat(ex).isInstanceOf(DelayTaskException.class));
            assertThat(sizesWhileDown).as("Redis queue: only the task added before").containsExactly(1, 0, 0);
            assertThat(stored).isZero();
            assertThat(this.runs.status(1L)).isEqualTo(TaskStatus.SCHEDULED);
            // the database back: the same task is accepted, and reaches Redis
            assertThat(service.addTask(DelayTask.builder(NO_LISTENER).taskId(2L).delay(Duration.ofMinutes(1)).build()))
                .isEqualTo(2L);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(queues.sizes(queue))
                .as("Redis queue").containsExactly(2, 0, 0));
        });
    }

    @Test
    void tasksWhoseHandlersFinishWhileTheDatabaseIsCutForTwoSecondsAreRecordedOnceItIsBackAndRunOnce() {
        FaultApp.runner(properties("delay-task.listener.concurrency=" + LATCHED_TASKS))
            .withUserConfiguration(LatchedListener.class)
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                LatchedListener listener = context.getBean(LatchedListener.class);
                List<DelayTask> tasks = new ArrayList<>();
                for (int i = 0; i < LATCHED_TASKS; i++) {
                    tasks.add(DelayTask.builder(LATCHED).build());
                }
                List<Long> ids = service.addTasks(tasks);
                await().atMost(Duration.ofSeconds(10)).until(() -> listener.runs.size() == LATCHED_TASKS);
                this.proxy.cut();
                listener.release.countDown();
                await().atMost(Duration.ofSeconds(5)).until(() -> listener.returned.get() == LATCHED_TASKS);
                // the cut lasts 2 s, well within the lease, and nothing can be recorded meanwhile
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> this.runs.count(
                        "SELECT COUNT(*) FROM taskinfo_logs WHERE status = ?", TaskStatus.EXECUTED.code()) == 0);
                this.proxy.restore();

                await().atMost(Duration.ofSeconds(20)).until(() -> this.runs.count(
                        "SELECT COUNT(*) FROM taskinfo_logs WHERE status = ?", TaskStatus.EXECUTED.code()) == ids.size());
                long duplicates = listener.runs.size() - LATCHED_TASKS;
                System.out.println("fault: database-cut-2s-during-ack tasks=" + LATCHED_TASKS + " lost=0 duplicates="
                        + duplicates + " runs=" + listener.runs.size());
                assertThat(listener.runs).as("runs").hasSize(LATCHED_TASKS);
                assertThat(this.runs.count("SELECT COUNT(*) FROM taskinfo_logs WHERE attempts <> 1")).isZero();
                assertThat(this.runs.count("SELECT COUNT(*) FROM taskinfo")).isZero();
                QueueAdministration queues = context.getBean(QueueAdministration.class);
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> Arrays.equals(queues.sizes(new QueueId(LATCHED, 0)), new long[] { 0, 0, 0 }));
            });
    }

    private Map<String, String> properties(String... more) {
        String url = this.backend.jdbcUrl().replace("127.0.0.1:5432", "127.0.0.1:" + this.proxy.port());
        List<String> properties = new ArrayList<>(List.of("spring.datasource.url=" + url,
                "spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.validation-timeout=500",
                "spring.datasource.hikari.maximum-pool-size=4", "delay-task.lease=" + LEASE.toMillis() + "ms"));
        properties.addAll(List.of(more));
        return FaultApp.properties(this.backend, properties.toArray(new String[0]));
    }

    /** Blocks its task's first run until released, recording when each run started. */
    static class LatchedListener {

        final List<Long> runs = new CopyOnWriteArrayList<>();

        final CountDownLatch release = new CountDownLatch(1);

        final AtomicInteger returned = new AtomicInteger();

        @DelayTaskListener(taskType = LATCHED)
        void run(DelayTask task) throws InterruptedException {
            this.runs.add(System.currentTimeMillis());
            if (!this.release.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
            this.returned.incrementAndGet();
        }

    }

}
