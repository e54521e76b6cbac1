package io.github.delaytask.cluster;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import java.util.stream.StreamSupport;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.cluster.LocalRedis.FailOver;
import io.github.delaytask.testsupport.BootLine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The end-to-end checks against Redis with replicas, then a master killed with {@code kill -9} while tasks are added
 * and run. Subclasses start the servers: a Redis Cluster or a Sentinel deployment of the test's own, run from the
 * machine's {@code redis-server}. The database is an in-memory H2; each test has its own database and key prefix.
 * The application gets every auto-configuration of the starter, as a user's does.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class AbstractRedisFailoverTests {

    /** Task types with a listener. In the test cluster their queues fall on every master. */
    static final int[] RECORDED = { 1, 2, 3, 4, 7, 13 };

    static final int FLAKY = 9;

    static final int NO_LISTENER = 10;

    /** The queue whose master the fail-over test kills. */
    static final int VICTIM = 1;

    /** Shorter than the Redis command timeout, so that a fail-over shows which one an add waits for. */
    static final Duration HAND_OFF_TIMEOUT = Duration.ofMillis(200);

    /** Runs last: it leaves a shard without a replica. */
    static final int FAIL_OVER_ORDER = Integer.MAX_VALUE - 10;

    LocalRedis redis;

    ApplicationContextRunner runner;

    String keyPrefix;

    abstract LocalRedis startRedis();

    static String hashTag(int taskType) {
        return taskType + ":0";
    }

    @BeforeAll
    void startRedisServers() {
        this.redis = startRedis();
    }

    @AfterAll
    void stopRedisServers() {
        if (this.redis != null) {
            this.redis.close();
        }
    }

    @BeforeEach
    void newApplication() {
        String id = UUID.randomUUID().toString().substring(0, 8);
        this.keyPrefix = "delay-task-test-" + id;
        this.runner = new ApplicationContextRunner().withConfiguration(bootAndStarterAutoConfigurations())
            .withUserConfiguration(Listeners.class)
            .withPropertyValues(this.redis.properties().toArray(new String[0]))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:failover_" + id + ";DB_CLOSE_DELAY=-1",
                    "spring.datasource.username=sa", "spring.datasource.password=",
                    "delay-task.redis.key-prefix=" + this.keyPrefix, "delay-task.jdbc.initialize-schema=always",
                    "delay-task.listener.poll-interval=50ms", "delay-task.retry.initial-delay=100ms",
                    "delay-task.reload-interval=2s", "delay-task.lease=5s",
                    // commands for a dead master fail after this, rather than Lettuce's default of a minute
                    "spring.data.redis.timeout=2s",
                    "delay-task.redis.hand-off-timeout=" + HAND_OFF_TIMEOUT.toMillis() + "ms");
    }

    @AfterEach
    void noServerWasAskedToListKeysOrRefusedAScriptForTouchingTwoSlots() {
        assertThat(this.redis.commandAndErrorCounts()).doesNotContainKeys("cmdstat_keys", "cmdstat_scan",
                "errorstat_CROSSSLOT");
    }

    @Test
    void tasksOfEveryQueueRunOnceAndAreMarkedExecuted() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                for (int type : RECORDED) {
                    ids.add(service.addTask(DelayTask.builder(type).delay(Duration.ofMillis(i * 100L))
                        .parameters("task " + i).build()));
                }
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> executed(context) == ids.size());
            assertThat(listeners.runs).containsOnlyKeys(ids);
            assertThat(listeners.runs.values()).allSatisfy((runs) -> assertThat(runs).hasSize(1));
            assertThat(count(context, "SELECT COUNT(*) FROM taskinfo")).isZero();
        });
    }

    @Test
    void taskRunsNoEarlierThanItsExecuteTimeAndWithinASecondOfIt() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            Map<Long, Long> executeTimes = new ConcurrentHashMap<>();
            for (int type : RECORDED) {
                DelayTask task = DelayTask.builder(type).delay(Duration.ofMillis(1500)).build();
                executeTimes.put(service.addTask(task), task.getExecuteTime());
            }
            await().atMost(Duration.ofSeconds(10))
                .until(() -> listeners.runs.keySet().containsAll(executeTimes.keySet()));
            executeTimes.forEach((id, executeTime) -> assertThat(listeners.runs.get(id).get(0))
                .isBetween(executeTime, executeTime + 1000));
        });
    }

    @Test
    void cancelledTaskNeverRunsWhileLaterTasksDo() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            List<Long> cancelled = new ArrayList<>();
            List<Long> later = new ArrayList<>();
            for (int type : RECORDED) {
                long id = service.addTask(DelayTask.builder(type).delay(Duration.ofMillis(500)).build());
                later.add(service.addTask(DelayTask.builder(type).delay(Duration.ofMillis(1000)).build()));
                assertThat(service.cancelTask(id)).isTrue();
                cancelled.add(id);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.runs.keySet().containsAll(later));
            assertThat(listeners.runs).doesNotContainKeys(cancelled.toArray(new Long[0]));
            assertThat(cancelled).allSatisfy((id) -> assertThat(service.findTask(id)).get()
                .extracting(TaskDetails::status)
                .isEqualTo(TaskStatus.CANCELLED));
        });
    }

    @Test
    void pollTakesADueTaskOfATypeWithoutListenerAndMarksItExecuted() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long later = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofMinutes(2)).build());
            assertThat(service.poll(NO_LISTENER, 0)).isNull();
            long due = service.addTask(DelayTask.builder(NO_LISTENER).parameters("now").build());
            DelayTask polled = service.poll(NO_LISTENER, 0);
            assertThat(polled).isNotNull();
            assertThat(polled.getTaskId()).isEqualTo(due);
            assertThat(polled.getParametersAsString()).isEqualTo("now");
            assertThat(status(context, due)).isEqualTo(TaskStatus.EXECUTED);
            assertThat(service.poll(NO_LISTENER, 0)).isNull();
            assertThat(status(context, later)).isEqualTo(TaskStatus.SCHEDULED);
        });
    }

    @Test
    void failedTaskRunsAgainAfterItsBackOff() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            listeners.flakyFailures.set(2);
            long id = service.addTask(DelayTask.builder(FLAKY).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            assertThat(listeners.runs.get(id)).hasSize(3);
            assertThat(service.findTask(id)).get().extracting(TaskDetails::attempts).isEqualTo(3);
        });
    }

    @Test
    void tasksRedisLostAreBroughtBackFromTheDatabase() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            List<Long> ids = new ArrayList<>();
            for (int type : RECORDED) {
                ids.add(service.addTask(DelayTask.builder(type).delay(Duration.ofSeconds(1)).build()));
            }
            this.redis.flushAll();
            await().atMost(Duration.ofSeconds(15)).until(() -> executed(context) == ids.size());
            assertThat(listeners.runs).containsOnlyKeys(ids);
        });
    }

    @Test
    @Order(FAIL_OVER_ORDER)
    void noTaskIsLostWhenAMasterIsKilledMidRun() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            Set<Long> ids = ConcurrentHashMap.newKeySet();
            AtomicInteger next = new AtomicInteger();
            AtomicLong longestAdd = new AtomicLong();
            ScheduledExecutorService adder = Executors.newSingleThreadScheduledExecutor();
            FailOver failOver;
            Set<Integer> onVictimsMaster;
            long dropped;
            Duration clientRecovery;
            try {
                // about 100 tasks a second over every queue, each due within 2 s
                adder.scheduleAtFixedRate(() -> {
                    int type = RECORDED[next.getAndIncrement() % RECORDED.length];
                    long delay = ThreadLocalRandom.current().nextLong(2000);
                    long start = System.nanoTime();
                    ids.add(service.addTask(DelayTask.builder(type).delay(Duration.ofMillis(delay)).build()));
                    longestAdd.accumulateAndGet(System.nanoTime() - start, Math::max);
                }, 0, 10, TimeUnit.MILLISECONDS);
                await().atMost(Duration.ofSeconds(30)).until(() -> listeners.runs.size() >= 200);
                onVictimsMaster = typesOnTheMasterOf(VICTIM);
                failOver = this.redis.failOver(hashTag(VICTIM));
                // the worst a fail-over can do: the promoted replica has none of the queue's data
                String queue = this.keyPrefix + ":{" + hashTag(VICTIM) + "}:";
                dropped = this.redis.onMasterOf(hashTag(VICTIM), (commands) -> {
                    long queued = commands.zcard(queue + "future") + commands.zcard(queue + "ready")
                            + commands.zcard(queue + "inflight");
                    commands.flushall();
                    return queued;
                });
                StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
                String probe = this.keyPrefix + ":{" + hashTag(VICTIM) + "}:probe";
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                    .until(() -> writes(template, probe));
                clientRecovery = Duration.between(failOver.killedAt(), Instant.now());
                int addedBefore = ids.size();
                await().atMost(Duration.ofSeconds(30)).until(() -> ids.size() >= addedBefore + 200);
            }
            finally {
                adder.shutdownNow();
                adder.awaitTermination(10, TimeUnit.SECONDS);
            }
            assertThat(adder.isTerminated()).isTrue();
            await().atMost(Duration.ofSeconds(60)).until(() -> executed(context) == ids.size());
            Set<Long> lost = new HashSet<>(ids);
            lost.removeAll(listeners.runs.keySet());
            long ranTwice = listeners.runs.values().stream().filter((runs) -> runs.size() > 1).count();
            System.out.printf("[fail-over] %s: killed %s; replica promoted after %d ms; %d task ids of the queue "
                    + "dropped from the promoted replica; the application wrote to its slots again after %d ms; %d "
                    + "tasks added, %d lost, %d ran more than once; the longest add took %d ms%n",
                    getClass().getSimpleName(), failOver.killed(), failOver.promotion().toMillis(), dropped,
                    clientRecovery.toMillis(), ids.size(), lost.size(), ranTwice,
                    TimeUnit.NANOSECONDS.toMillis(longestAdd.get()));
            // figures, not assertions: the target is a p99 under 1 s where the master did not fail
            long from = failOver.killedAt().toEpochMilli();
            long to = from + clientRecovery.toMillis();
            System.out.printf("[fail-over] %s: lateness of the first runs of tasks due while the client recovered: "
                    + "queues on the killed master %s; queues on the other masters %s%n", getClass().getSimpleName(),
                    listeners.lateness(from, to, onVictimsMaster::contains),
                    listeners.lateness(from, to, (type) -> !onVictimsMaster.contains(type)));
            assertThat(lost).isEmpty();
            // commands to the dead master wait the 2 s Redis timeout; an add waits for Redis at most the hand-off
            // bound, and its database round trips
            assertThat(TimeUnit.NANOSECONDS.toMillis(longestAdd.get())).as("ms of the longest add")
                .isLessThan(HAND_OFF_TIMEOUT.toMillis() + 1300);
            assertThat(count(context, "SELECT COUNT(*) FROM taskinfo")).isZero();
        });
    }

    /** The task types whose queues the master of the given type's queue holds, by the masters' run ids. */
    private Set<Integer> typesOnTheMasterOf(int taskType) {
        String master = runId(taskType);
        Set<Integer> types = new HashSet<>();
        for (int type : RECORDED) {
            if (runId(type).equals(master)) {
                types.add(type);
            }
        }
        return types;
    }

    private String runId(int taskType) {
        return this.redis.onMasterOf(hashTag(taskType), (commands) -> commands.info("server")
            .lines()
            .filter((line) -> line.startsWith("run_id:"))
            .findFirst()
            .orElseThrow());
    }

    static boolean writes(StringRedisTemplate template, String key) {
        try {
            template.opsForValue().set(key, "1");
            return true;
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    static AutoConfigurations bootAndStarterAutoConfigurations() {
        List<Class<?>> classes = new ArrayList<>(List.of(BootLine.REDIS,
                BootLine.DATA_SOURCE, BootLine.TRANSACTION_MANAGER,
                BootLine.TRANSACTION, BootLine.JACKSON,
                BootLine.MYBATIS_PLUS));
        ClassLoader classLoader = AbstractRedisFailoverTests.class.getClassLoader();
        StreamSupport.stream(ImportCandidates.load(AutoConfiguration.class, classLoader).spliterator(), false)
            .filter((name) -> name.startsWith("io.github.delaytask."))
            .forEach((name) -> classes.add(ClassUtils.resolveClassName(name, classLoader)));
        return AutoConfigurations.of(classes.toArray(new Class<?>[0]));
    }

    private static long executed(AssertableApplicationContext context) {
        return count(context, "SELECT COUNT(*) FROM taskinfo_logs WHERE status = " + TaskStatus.EXECUTED.code());
    }

    private static TaskStatus status(AssertableApplicationContext context, long id) {
        Integer code = new JdbcTemplate(context.getBean(DataSource.class))
            .queryForObject("SELECT status FROM taskinfo_logs WHERE task_id = ?", Integer.class, id);
        return TaskStatus.fromCode(code);
    }

    private static long count(AssertableApplicationContext context, String sql) {
        Long value = new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(sql, Long.class);
        return (value != null) ? value : 0;
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final Map<Long, List<Long>> runs = new ConcurrentHashMap<>();

        final AtomicInteger flakyFailures = new AtomicInteger();

        @DelayTaskListener(taskType = 1)
        void type1(DelayTask task) {
            record(task);
        }

        @DelayTaskListener(taskType = 2)
        void type2(DelayTask task) {
            record(task);
        }

        @DelayTaskListener(taskType = 3)
        void type3(DelayTask task) {
            record(task);
        }

        @DelayTaskListener(taskType = 4)
        void type4(DelayTask task) {
            record(task);
        }

        @DelayTaskListener(taskType = 7)
        void type7(DelayTask task) {
            record(task);
        }

        @DelayTaskListener(taskType = 13)
        void type13(DelayTask task) {
            record(task);
        }

        @DelayTaskListener(taskType = FLAKY)
        void flaky(DelayTask task) {
            record(task);
            if (this.flakyFailures.getAndDecrement() > 0) {
                throw new IllegalStateException("flaky failure");
            }
        }

        /** The first run of each task: its type, when it was due and when it started, epoch ms. */
        final Map<Long, long[]> firstRuns = new ConcurrentHashMap<>();

        private void record(DelayTask task) {
            long now = System.currentTimeMillis();
            this.runs.computeIfAbsent(task.getTaskId(), (id) -> new CopyOnWriteArrayList<>()).add(now);
            this.firstRuns.putIfAbsent(task.getTaskId(),
                    new long[] { task.getTaskType(), task.getExecuteTime(), now });
        }

        /** How late the first runs of the tasks of the given types due between the times started: count and ms. */
        String lateness(long dueFrom, long dueTo, IntPredicate types) {
            long[] late = this.firstRuns.values()
                .stream()
                .filter((run) -> types.test((int) run[0]) && run[1] >= dueFrom && run[1] <= dueTo)
                .mapToLong((run) -> Math.max(0, run[2] - run[1]))
                .sorted()
                .toArray();
            if (late.length == 0) {
                return "(none due)";
            }
            return late.length + " tasks, p50 " + late[(late.length - 1) / 2] + " ms, p99 "
                    + late[(int) Math.ceil(late.length * 0.99) - 1] + " ms, max " + late[late.length - 1] + " ms";
        }

    }

}
