package io.github.delaytask.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.testsupport.TcpProxy;
import io.github.delaytask.testsupport.TestBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis that stalls, as in a Sentinel fail-over, under {@code CLIENT PAUSE} or in a partition: connections stay
 * open and nothing comes back, for less than Boot's default command timeout of a minute. Redis is reached through a
 * proxy that holds what either side sends; the database is the real MariaDB. What the database records must not wait
 * for Redis: outcomes are recorded and leases extended in the database meanwhile, and Redis catches up once it
 * answers.
 */
@Tag("faults")
class RedisStallFaultTests {

    private static final QueueId QUEUE = new QueueId(RecordingListener.TASK_TYPE, 0);

    private TestBackend backend;

    private FaultRuns runs;

    private TcpProxy proxy;

    @BeforeEach
    void createSchemaAndProxy() {
        this.backend = TestBackend.mariaDb();
        this.runs = new FaultRuns(this.backend);
        this.runs.createSchema("mysql");
        this.proxy = TcpProxy.start(this.backend.redisHost(), this.backend.redisPort());
    }

    @AfterEach
    void closeProxyAndDropDatabase() {
        try {
            this.proxy.close();
        }
        finally {
            this.backend.close();
        }
    }

    @Test
    void handlersThatFinishWhileRedisStallsAreRecordedInTheDatabaseMeanwhileAndForgottenByRedisOnceItAnswers() {
        int tasks = 20;
        // no spring.data.redis.timeout: Boot's default, a minute; handlers of one to three seconds, all at once
        Map<String, String> properties = properties("fault.handler-millis=2000",
                "delay-task.listener.concurrency=" + tasks);
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            addDueTasks(service, tasks);
            await().atMost(Duration.ofSeconds(20)).until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") == tasks);
            this.proxy.stall();
            try {
                // well within the command timeout: the outcomes do not wait for Redis
                await().atMost(Duration.ofSeconds(15)).until(() -> executed() == tasks);
            }
            finally {
                this.proxy.resume();
            }
            QueueAdministration queues = context.getBean(QueueAdministration.class);
            // forgotten: out of flight. A reload whose write the stall held may put finished ids back among the
            // future ones, which their next claim drops
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(queues.sizes(QUEUE)[2]).as("in-flight ids of %s", QUEUE).isZero());
            assertThat(this.runs.duplicated()).isEmpty();
        });
    }

    @Test
    void handlersThatFailWhileRedisStallsHaveTheirDeathRecordedMeanwhileAndTheirThreadGoesOnToTheNextTask() {
        // one thread, four tasks claimed ahead of it, each failing for good after a few hundred ms
        Map<String, String> properties = properties("fault.handler-millis=400", "fault.fail=true",
                "delay-task.retry.max-attempts=1", "delay-task.listener.concurrency=1",
                "delay-task.listener.prefetch=5");
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            addDueTasks(service, 4);
            await().atMost(Duration.ofSeconds(20))
                .until(() -> this.runs.count("SELECT COUNT(*) FROM taskinfo WHERE lease_until IS NOT NULL") == 4);
            this.proxy.stall();
            try {
                // a thread that waited for Redis after each failure would run one task a minute
                await().atMost(Duration.ofSeconds(15)).until(() -> this.runs.count(
                        "SELECT COUNT(*) FROM taskinfo_logs WHERE status = ?", TaskStatus.DEAD.code()) == 4);
            }
            finally {
                this.proxy.resume();
            }
            assertThat(this.runs.count("SELECT COUNT(*) FROM fault_runs")).as("runs").isEqualTo(4);
        });
    }

    @Test
    void aHandlerThatRunsPastItsLeaseWhileRedisStallsKeepsItsLeaseInTheDatabaseAndRunsOnce() {
        // a handler of eight to twenty-four seconds, a lease of three
        Map<String, String> properties = properties("fault.handler-millis=16000", "delay-task.lease=3s");
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE).build());
            await().atMost(Duration.ofSeconds(20)).until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") == 1);
            this.proxy.stall();
            try {
                // two leases, at every look; the handler runs eight seconds at least
                await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(7))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> leaseUntil(id) > System.currentTimeMillis());
            }
            finally {
                this.proxy.resume();
            }
            await().atMost(Duration.ofSeconds(40)).until(() -> executed() == 1);
            assertThat(this.runs.count("SELECT COUNT(*) FROM fault_runs WHERE task_id = ?", id)).as("runs")
                .isEqualTo(1);
        });
    }

    @Test
    void aTaskAClaimTookAfterItsCallerGaveUpWaitingRunsOnceRedisAnswersNotAfterItsLease() {
        // a claim times out after a second; Redis then runs it all the same, once the stall ends, and the task it
        // takes is in flight, leased to no one
        Duration lease = Duration.ofSeconds(20);
        Map<String, String> properties = properties("spring.data.redis.timeout=1s", "delay-task.lease=" + lease.toSeconds() + "s");
        ScheduledExecutorService resumer = Executors.newSingleThreadScheduledExecutor();
        try {
            FaultApp.runner(properties).run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                QueueAdministration queues = context.getBean(QueueAdministration.class);
                long dueAt = System.currentTimeMillis() + 1500;
                long id = service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE)
                    .executeAt(Instant.ofEpochMilli(dueAt))
                    .build());
                await().atMost(Duration.ofSeconds(1)).until(() -> queues.sizes(QUEUE)[0] == 1);
                // from before the task is due until well after the first claims of it timed out
                this.proxy.stall();
                resumer.schedule(this.proxy::resume, 3500, TimeUnit.MILLISECONDS);
                await().atMost(lease.multipliedBy(2)).until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") == 1);
                long late = this.runs.count("SELECT started_at FROM fault_runs WHERE task_id = ?", id) - dueAt;
                System.out.println("fault: claim-lost-in-a-stall late-ms=" + late);
                // the stall ends 2 s after the task is due; its lease would have run out 20 s after that
                assertThat(late).as("ms late, with a lease of %s", lease).isLessThan(lease.toMillis() / 2);
            });
        }
        finally {
            resumer.shutdownNow();
        }
    }

    @Test
    void whileRedisStallsAnAddOfATaskDueInMinutesReturnsAtItsCommitAndOneOfATaskDueNowWaitsForTheHandOffsBound() {
        Duration bound = Duration.ofSeconds(5);
        Map<String, String> properties = properties("spring.data.redis.timeout=20s",
                "delay-task.redis.hand-off-timeout=" + bound.toSeconds() + "s", "delay-task.listener.enabled=false");
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            QueueAdministration queues = context.getBean(QueueAdministration.class);
            this.proxy.stall();
            long later;
            long now;
            try {
                long start = System.nanoTime();
                // within the preload window: the hand-off owes it to Redis, which holds the write up
                long laterId = service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE)
                    .delay(Duration.ofMinutes(2))
                    .build());
                later = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                start = System.nanoTime();
                long nowId = service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE).build());
                now = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(this.runs.count("SELECT COUNT(*) FROM taskinfo WHERE task_id IN (?, ?)", laterId, nowId))
                    .as("tasks stored").isEqualTo(2);
            }
            finally {
                this.proxy.resume();
            }
            System.out.println("fault: add-while-redis-stalls due-in-minutes-ms=" + later + " due-now-ms=" + now);
            // before, every caller waited for its write to Redis, up to the bound
            assertThat(later).as("ms to add a task due in 2 minutes, Redis stalled, hand-off bound %s", bound)
                .isLessThan(bound.toMillis() / 2);
            assertThat(now).as("ms to add a task due now, Redis stalled, hand-off bound %s", bound)
                .isGreaterThanOrEqualTo(bound.toMillis() / 2);
            // both in Redis once it answers: the one due now may have been made ready meanwhile
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                long[] sizes = queues.sizes(QUEUE);
                return sizes[0] + sizes[1] == 2;
            });
        });
    }

    @Test
    void aTaskAddedWhileRedisWasOutOfReachReachesItWhenTheApplicationStopsRightAfterRedisIsBack() {
        // the hand-off waits for Redis up to 3 s at the stop, time for Lettuce to reconnect after the cut
        Map<String, String> properties = properties("delay-task.redis.hand-off-timeout=3s",
                "delay-task.listener.enabled=false");
        long[] id = new long[1];
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            this.proxy.cut();
            // due within the preload window: the hand-off owes it to Redis
            id[0] = service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE).delay(Duration.ofMinutes(2)).build());
            this.proxy.restore();
            // stopped at once: before the fix, the hand-off's last try came after Redis's connections had closed
            ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
        });
        RedisClient client = RedisClient.create(RedisURI.create(this.backend.redisHost(), this.backend.redisPort()));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            String future = this.backend.keyPrefix() + ":{" + RecordingListener.TASK_TYPE + ":0}:future";
            assertThat(connection.sync().zscore(future, Long.toString(id[0])))
                .as("the task in Redis once the application stopped").isNotNull();
        }
        finally {
            client.shutdown();
        }
    }

    @Test
    void aTaskPolledWhileRedisStallsRightAfterItsClaimIsRecordedAndThePollReturnsWithoutWaitingForRedis() {
        // a command timeout of 5 s: before, the poll told Redis of the outcome on its own thread and waited for it
        Map<String, String> properties = properties("spring.data.redis.timeout=5s",
                "delay-task.listener.enabled=false");
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE).build());
            long[] handled = new long[1];
            boolean polled;
            try {
                polled = service.poll(RecordingListener.TASK_TYPE, 0, (task) -> {
                    // claimed: Redis stalls from here on
                    this.proxy.stall();
                    handled[0] = System.nanoTime();
                });
            }
            finally {
                this.proxy.resume();
            }
            long returnedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - handled[0]);
            System.out.println("fault: poll-while-redis-stalls returned-ms=" + returnedMillis);
            assertThat(polled).isTrue();
            assertThat(service.findTask(id)).get().extracting(TaskDetails::status).isEqualTo(TaskStatus.EXECUTED);
            assertThat(returnedMillis).as("ms from the handler's end to the poll's return, Redis stalled")
                .isLessThan(2500);
        });
    }

    @Test
    void stoppingWhileRedisStallsKeepsToTheShutdownBoundAndTheTasksClaimedAheadGoBack() {
        // one thread busy for one to three seconds, three tasks claimed ahead of it
        Map<String, String> properties = properties("fault.handler-millis=2000", "delay-task.listener.concurrency=1",
                "delay-task.listener.prefetch=5", "delay-task.shutdown-timeout=1s");
        long[] closeMillis = new long[1];
        FaultApp.runner(properties).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            addDueTasks(service, 4);
            await().atMost(Duration.ofSeconds(20))
                .until(() -> this.runs.count("SELECT COUNT(*) FROM fault_runs") == 1
                        && this.runs.count("SELECT COUNT(*) FROM taskinfo WHERE lease_until IS NOT NULL") == 4);
            this.proxy.stall();
            long start = System.nanoTime();
            ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
            closeMillis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        });
        this.proxy.resume();
        System.out.println("fault: stop-while-redis-stalls close-ms=" + closeMillis[0]);
        // the shutdown timeout, the handlers' grace, a job's wait and the hand-off's bound, and a second to spare
        assertThat(closeMillis[0]).as("ms to stop while Redis stalls, with a shutdown timeout of 1 s")
            .isLessThan(1000 + 2000 + 1000 + 1000 + 1000);
        assertThat(this.runs.count("SELECT COUNT(*) FROM taskinfo WHERE lease_until IS NULL AND attempts = 0"))
            .as("tasks claimed ahead, back and due at once, their attempt not counted")
            .isGreaterThanOrEqualTo(3);
    }

    private Map<String, String> properties(String... overrides) {
        List<String> all = new ArrayList<>(List.of("spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + this.proxy.port()));
        all.addAll(List.of(overrides));
        return FaultApp.properties(this.backend, all.toArray(String[]::new));
    }

    /** That many tasks of the recording listener, due now, in one call. */
    private static void addDueTasks(DelayTaskService service, int count) {
        List<DelayTask> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(DelayTask.builder(RecordingListener.TASK_TYPE).build());
        }
        service.addTasks(batch);
    }

    private long executed() {
        return this.runs.count("SELECT COUNT(*) FROM taskinfo_logs WHERE status = ?", TaskStatus.EXECUTED.code());
    }

    /** The task's lease in the database, epoch ms; 0 once it is no longer held. */
    private long leaseUntil(long id) {
        return this.runs.count("SELECT COALESCE(MAX(lease_until), 0) FROM taskinfo WHERE task_id = ?", id);
    }

}
