package io.github.delaytask.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.metrics.DatabaseDispatchMeter;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.VolatileRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances in this JVM, a Redis of the test's own that stops and starts again empty, and the real MariaDB or
 * PostgreSQL: while Redis does not answer, the database dispatches, so tasks due meanwhile (added before Redis
 * stopped, and while it was down) run, each once, though both instances claim them at once; once Redis is back, both instances go back to it, and the tasks
 * added then run through it, each once.
 */
@Tag("faults")
class DatabaseDispatchFaultTests {

    private static final QueueId QUEUE = new QueueId(RecordingListener.TASK_TYPE, 0);

    /** More than one instance's room (concurrency and prefetch), so that both claim from the database at once. */
    private static final String DATABASE_QUEUES = "delaytask.dispatch.database.queues";

    private static final String EXECUTED_OF_TYPE = "SELECT COUNT(*) FROM taskinfo_logs WHERE task_type = ? "
            + "AND status = ?";

    private static final int BEFORE_STOP = 400;

    private static final int WHILE_DOWN = 5;

    private static final int AFTER_RESTART = 20;

    private TestBackend backend;

    private VolatileRedis redis;

    @AfterEach
    void stopRedisAndDropSchema() {
        try {
            if (this.redis != null) {
                this.redis.close();
            }
        }
        finally {
            if (this.backend != null) {
                this.backend.close();
            }
        }
    }

    @Test
    void onMariaDbTasksDueWhileRedisIsDownRunOnceFromTheDatabaseAndDispatchGoesBackToRedisOnceItAnswers() {
        tasksDueWhileRedisIsDownRunOnceFromTheDatabase(TestBackend.mariaDb(), "mysql");
    }

    @Test
    void onPostgreSqlTasksDueWhileRedisIsDownRunOnceFromTheDatabaseAndDispatchGoesBackToRedisOnceItAnswers() {
        tasksDueWhileRedisIsDownRunOnceFromTheDatabase(TestBackend.postgreSql(), "postgresql");
    }

    private void tasksDueWhileRedisIsDownRunOnceFromTheDatabase(TestBackend backend, String platform) {
        this.backend = backend;
        FaultRuns runs = new FaultRuns(backend);
        runs.createSchema(platform);
        this.redis = VolatileRedis.start();
        // a reload far away: only the database's dispatch can run what falls due while Redis is down
        Map<String, String> properties = FaultApp.properties(backend, "spring.data.redis.port=" + this.redis.port(),
                "spring.data.redis.timeout=2s", "delay-task.reload-interval=10m", "delay-task.preload-window=20m",
                "delay-task.database-dispatch.poll-interval=500ms", RecordingListener.HANDLER_MILLIS + "=10");
        FaultApp.runner(properties).withPropertyValues(RecordingListener.WORKER_ID + "=a").run((a) -> {
            FaultApp.runner(properties).withPropertyValues(RecordingListener.WORKER_ID + "=b").run((b) -> {
                DelayTaskService service = a.getBean(DelayTaskService.class);
                MeterRegistry meters = new SimpleMeterRegistry();
                new DatabaseDispatchMeter(meters, a.getBeanProvider(Claims.class)).afterSingletonsInstantiated();
                List<DelayTask> early = new ArrayList<>();
                for (int i = 0; i < BEFORE_STOP; i++) {
                    early.add(DelayTask.builder(RecordingListener.TASK_TYPE).delay(Duration.ofSeconds(3)).build());
                }
                List<Long> ids = new ArrayList<>(service.addTasks(early));
                this.redis.stop();
                for (int i = 0; i < WHILE_DOWN; i++) {
                    ids.add(service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE)
                        .delay(Duration.ofSeconds(1))
                        .build()));
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> executed(runs, ids) == ids.size());
                Set<QueueId> fromDatabase = new HashSet<>(dispatchedFromDatabase(a));
                fromDatabase.addAll(dispatchedFromDatabase(b));
                assertThat(fromDatabase).as("queues the instances dispatch from the database").containsExactly(QUEUE);
                assertThat(meters.get(DATABASE_QUEUES).gauge().value())
                    .isEqualTo(dispatchedFromDatabase(a).size());
                assertThat(runs.duplicated()).as("tasks that ran twice while Redis was down").isEmpty();
                System.out.println("fault: database-dispatch while Redis is down: tasks=" + ids.size() + " runs="
                        + runs.runsPerWorker());

                this.redis.startAgain();
                await().atMost(Duration.ofSeconds(20))
                    .until(() -> dispatchedFromDatabase(a).isEmpty() && dispatchedFromDatabase(b).isEmpty());
                List<DelayTask> late = new ArrayList<>();
                for (int i = 0; i < AFTER_RESTART; i++) {
                    late.add(DelayTask.builder(RecordingListener.TASK_TYPE).delay(Duration.ofMillis(500)).build());
                }
                ids.addAll(service.addTasks(late));
                await().atMost(Duration.ofSeconds(20)).until(() -> executed(runs, ids) == ids.size());
                assertThat(dispatchedFromDatabase(a)).isEmpty();
                assertThat(dispatchedFromDatabase(b)).isEmpty();
                assertThat(meters.get(DATABASE_QUEUES).gauge().value()).isZero();
                assertThat(runs.duplicated()).as("tasks that ran twice").isEmpty();
                assertThat(runs.count("SELECT COUNT(*) FROM fault_runs")).isEqualTo(ids.size());
            });
        });
    }

    /**
     * While Redis is down, cancels and reschedules are decided in the database, and the database's dispatch keeps to
     * them: a cancelled task never runs, a rescheduled one runs at its new time, not at its old.
     */
    @Test
    void onMariaDbCancelsAndReschedulesWhileRedisIsDownAreKeptByTheDatabasesDispatch() {
        this.backend = TestBackend.mariaDb();
        FaultRuns runs = new FaultRuns(this.backend);
        runs.createSchema("mysql");
        this.redis = VolatileRedis.start();
        Map<String, String> properties = FaultApp.properties(this.backend, "spring.data.redis.port=" + this.redis.port(),
                "spring.data.redis.timeout=2s", "delay-task.reload-interval=10m", "delay-task.preload-window=20m",
                "delay-task.database-dispatch.poll-interval=200ms");
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                tasks.add(DelayTask.builder(RecordingListener.TASK_TYPE).delay(Duration.ofSeconds(4)).build());
            }
            List<Long> ids = service.addTasks(tasks);
            long cancelled = ids.get(0);
            long rescheduled = ids.get(1);
            long kept = ids.get(2);
            this.redis.stop();
            assertThat(service.cancelTask(cancelled)).isTrue();
            long movedTo = runs.count("SELECT " + RecordingListener.databaseNow(new JdbcTemplate(
                    context.getBean(DataSource.class)))) + 8000;
            assertThat(service.rescheduleTask(rescheduled, Instant.ofEpochMilli(movedTo))).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> runs.status(rescheduled) == TaskStatus.EXECUTED);
            assertThat(runs.status(kept)).isEqualTo(TaskStatus.EXECUTED);
            assertThat(runs.status(cancelled)).isEqualTo(TaskStatus.CANCELLED);
            assertThat(runs.runsOf(cancelled)).as("runs of the cancelled task").isEmpty();
            assertThat(runs.runsOf(rescheduled)).singleElement()
                .satisfies((run) -> assertThat(run.startedAt()).as("start of the rescheduled task")
                    .isGreaterThanOrEqualTo(movedTo));
            assertThat(runs.duplicated()).isEmpty();
        });
    }

    /**
     * A task added here while Redis is down fires on time from the database: the hand-off that Redis does not take
     * tells this instance's dispatcher of it. Before, nothing did: the first task, added to an idle queue no claim of
     * which had failed yet, did not run within 30 s, and a later one waited for the next poll of the database (a poll
     * interval of 10 s makes that plain).
     */
    @Test
    void onMariaDbATaskAddedWhileRedisIsDownRunsOnTimeFromTheDatabaseRatherThanAtTheNextPoll() {
        this.backend = TestBackend.mariaDb();
        FaultRuns runs = new FaultRuns(this.backend);
        runs.createSchema("mysql");
        this.redis = VolatileRedis.start();
        Duration poll = Duration.ofSeconds(10);
        Map<String, String> properties = FaultApp.properties(this.backend,
                "spring.data.redis.port=" + this.redis.port(),
                "spring.data.redis.timeout=1s", "delay-task.reload-interval=10m", "delay-task.preload-window=20m",
                "delay-task.database-dispatch.poll-interval=" + poll.toSeconds() + "s");
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            this.redis.stop();
            // a first task, due now, has the queue dispatched from the database, and a database claim just made
            long first = service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE).build());
            await().atMost(poll.multipliedBy(3)).until(() -> runs.status(first) == TaskStatus.EXECUTED);
            assertThat(dispatchedFromDatabase(context)).containsExactly(QUEUE);
            long dueAt = runs.count("SELECT " + RecordingListener.databaseNow(new JdbcTemplate(
                    context.getBean(DataSource.class)))) + 1500;
            long second = service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE)
                .executeAt(Instant.ofEpochMilli(dueAt))
                .build());
            await().atMost(poll.multipliedBy(3)).until(() -> runs.status(second) == TaskStatus.EXECUTED);
            long late = runs.runsOf(second).get(0).startedAt() - dueAt;
            System.out.println("fault: added-while-redis-is-down late-ms=" + late + " poll-ms=" + poll.toMillis());
            assertThat(late).as("ms late of a task added while Redis is down, polled every %s", poll)
                .isLessThan(poll.toMillis() / 4);
            assertThat(runs.duplicated()).isEmpty();
        });
    }

    /**
     * With {@code spring.data.redis.timeout} left unset, Lettuce waits a minute for a server that stopped: a Redis
     * that stops answering is noticed after {@code delay-task.database-dispatch.claim-timeout} all the same, and the
     * tasks due meanwhile run from the database within seconds of their time, not after the command timeout.
     */
    @Test
    void onMariaDbWithTheCommandTimeoutLeftAtAMinuteTasksDueWhileRedisIsDownRunFromTheDatabaseWithinSeconds() {
        this.backend = TestBackend.mariaDb();
        FaultRuns runs = new FaultRuns(this.backend);
        runs.createSchema("mysql");
        this.redis = VolatileRedis.start();
        Map<String, String> properties = FaultApp.properties(this.backend,
                "spring.data.redis.port=" + this.redis.port(), "delay-task.reload-interval=10m",
                "delay-task.preload-window=20m", "delay-task.database-dispatch.poll-interval=500ms");
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            // the queue is claimed from Redis first
            long before = service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> runs.status(before) == TaskStatus.EXECUTED);
            this.redis.stop();
            long dueAt = runs.count("SELECT " + RecordingListener.databaseNow(new JdbcTemplate(
                    context.getBean(DataSource.class)))) + 1000;
            List<DelayTask> due = new ArrayList<>();
            for (int i = 0; i < WHILE_DOWN; i++) {
                due.add(DelayTask.builder(RecordingListener.TASK_TYPE).executeAt(Instant.ofEpochMilli(dueAt)).build());
            }
            List<Long> ids = service.addTasks(due);
            await().atMost(Duration.ofSeconds(20)).until(() -> executed(runs, ids) == ids.size());
            long late = ids.stream().mapToLong((id) -> runs.runsOf(id).get(0).startedAt()).max().orElseThrow()
                    - dueAt;
            System.out.println("fault: redis-down-default-command-timeout late-ms=" + late);
            // the claim timeout (2 s) and a poll interval, well short of the command timeout's minute
            assertThat(late).isLessThan(10_000);
            assertThat(dispatchedFromDatabase(context)).containsExactly(QUEUE);
            assertThat(runs.duplicated()).isEmpty();
        });
    }

    /**
     * A listener with a cluster-wide limit waits for Redis, which keeps the limit; its claims, which Redis does not
     * answer, must hold up neither the rounds nor the deadlines of the queues claimed from the database. With a
     * command timeout as long as the lease, a round that waited for it once made every task it claimed from the
     * database too late to start, again and again.
     */
    @Test
    void onMariaDbAListenerWithAClusterWideLimitWaitsForRedisAndHoldsUpNoOtherQueueClaimedFromTheDatabase() {
        this.backend = TestBackend.mariaDb();
        FaultRuns runs = new FaultRuns(this.backend);
        runs.createSchema("mysql");
        this.redis = VolatileRedis.start();
        Map<String, String> properties = FaultApp.properties(this.backend, "spring.data.redis.port=" + this.redis.port(),
                "spring.data.redis.timeout=2s", "delay-task.lease=2s", "delay-task.reload-interval=10m",
                "delay-task.preload-window=20m", "delay-task.database-dispatch.poll-interval=500ms");
        FaultApp.runner(properties).withUserConfiguration(LimitedListener.class).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            List<DelayTask> tasks = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                tasks.add(DelayTask.builder(RecordingListener.TASK_TYPE).delay(Duration.ofSeconds(2)).build());
                tasks.add(DelayTask.builder(LimitedListener.TASK_TYPE).delay(Duration.ofSeconds(2)).build());
            }
            List<Long> ids = service.addTasks(tasks);
            this.redis.stop();
            await().atMost(Duration.ofSeconds(30)).until(() -> runs.count(EXECUTED_OF_TYPE, RecordingListener.TASK_TYPE,
                    TaskStatus.EXECUTED.code()) == 20);
            assertThat(runs.count(EXECUTED_OF_TYPE, LimitedListener.TASK_TYPE, TaskStatus.EXECUTED.code()))
                .as("tasks of the listener with a cluster-wide limit run while Redis is down")
                .isZero();
            assertThat(runs.duplicated()).isEmpty();
            this.redis.startAgain();
            await().atMost(Duration.ofSeconds(30)).until(() -> runs.count(EXECUTED_OF_TYPE, LimitedListener.TASK_TYPE,
                    TaskStatus.EXECUTED.code()) == 20);
            assertThat(ids).hasSize(40);
        });
    }

    /** A listener whose queue has a cluster-wide limit. */
    @Configuration(proxyBeanMethods = false)
    static class LimitedListener {

        static final int TASK_TYPE = 2;

        @DelayTaskListener(taskType = TASK_TYPE, clusterConcurrency = "2")
        void run(DelayTask task) {
        }

    }

    private static Set<QueueId> dispatchedFromDatabase(ApplicationContext context) {
        return context.getBean(Claims.class).dispatchedFromDatabase();
    }

    private static long executed(FaultRuns runs, List<Long> ids) {
        return runs.statuses()
            .entrySet()
            .stream()
            .filter((entry) -> ids.contains(entry.getKey()) && entry.getValue() == TaskStatus.EXECUTED)
            .count();
    }

}
