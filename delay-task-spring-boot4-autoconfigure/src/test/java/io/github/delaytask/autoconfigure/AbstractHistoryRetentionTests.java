package io.github.delaytask.autoconfigure;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.testsupport.TaskStoreInterceptor;
import io.github.delaytask.testsupport.TestBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The retention of {@code taskinfo_logs}, against one backend: every way a task finishes records when, the purge
 * deletes executed and cancelled tasks older than the retention (and dead ones only with a dead retention), never a
 * live task, in bounded batches that keep no add or finish of a live task waiting. Subclasses pick the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractHistoryRetentionTests {

    private static final Log logger = LogFactory.getLog(AbstractHistoryRetentionTests.class);

    static final int RUNS = 61;

    static final int FAILS = 62;

    static final int NO_LISTENER = 69;

    static final int GENERATED = 68;

    private static final long DAY = Duration.ofDays(1).toMillis();

    private TestBackend backend;

    private ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    /** The application of these tests, the purge job off. */
    protected ApplicationContextRunner runner() {
        return this.runner;
    }

    /** How many old rows {@link #aPurgeOfManyOldRows} generates. */
    protected abstract int volume();

    /**
     * One {@code INSERT ... SELECT} of executed tasks from a generated series, with the parameters: the first id, the
     * task type, the execute time and the finishing time of the first row (each next row a millisecond later for
     * both, and the next id), and the number of rows.
     */
    protected abstract String insertExecutedSeries();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
        // the purge job off: each test purges when it says so, except the one of the job itself
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.listener.poll-interval=50ms", "delay-task.history.purge-enabled=false");
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
    void everyWayATaskFinishesRecordsWhenByTheDatabaseClockAndARequeueClearsIt() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long before = now(context);
            long ran = service.addTask(DelayTask.builder(RUNS).build());
            long dead = service.addTask(DelayTask.builder(FAILS).build());
            long polled = service.addTask(DelayTask.builder(NO_LISTENER).build());
            long cancelled = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            long live = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            assertThat(service.cancelTask(cancelled)).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> service.poll(NO_LISTENER, 0, (task) -> {
            }));
            await().atMost(Duration.ofSeconds(10))
                .until(() -> status(context, ran) == TaskStatus.EXECUTED && status(context, dead) == TaskStatus.DEAD);
            long after = now(context);
            for (long id : List.of(ran, dead, polled, cancelled)) {
                assertThat(finishedAt(context, id)).as("finishing time of %s", id).isBetween(before, after);
            }
            assertThat(finishedAt(context, live)).as("a live task has none").isNull();

            // the requeued task is due at once and the wake-up has it claimed within milliseconds: its run waits
            // until the row has been read live, or it could be dead again before the read
            CountDownLatch read = context.getBean(Listeners.class).holdFailures();
            assertThat(service.requeueTask(dead)).isTrue();
            assertThat(finishedAt(context, dead)).as("requeued, it is live again").isNull();
            read.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> status(context, dead) == TaskStatus.DEAD);
            assertThat(finishedAt(context, dead)).as("dead again").isBetween(after, now(context));
        });
    }

    @Test
    void executedAndCancelledTasksOlderThanTheRetentionArePurgedAndRecentOnesStay() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            List<Long> old = new ArrayList<>(executed(context, 2));
            old.addAll(cancelled(context, 2));
            List<Long> recent = new ArrayList<>(executed(context, 2));
            recent.addAll(cancelled(context, 2));
            finishedAgo(context, old, 31 * DAY);
            finishedAgo(context, recent.subList(0, 1), 29 * DAY);
            finishedAgo(context, recent.subList(2, 3), 29 * DAY);
            DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);

            assertThat(jobs.purgeHistoryNow()).isEqualTo(old.size());

            assertThat(logged(context)).containsExactlyInAnyOrderElementsOf(recent);
            assertThat(jobs.purgedHistoryRows()).isEqualTo(old.size());
            assertThat(jobs.purgeHistoryNow()).as("a second run").isZero();
        });
    }

    @Test
    void deadTasksStayUntilRequeuedUnlessADeadRetentionIsSet() {
        this.runner.run((context) -> {
            long old = deadTask(context);
            long recent = deadTask(context);
            finishedAgo(context, List.of(old), 400 * DAY);
            finishedAgo(context, List.of(recent), 6 * DAY);
            assertThat(context.getBean(DelayTaskJobs.class).purgeHistoryNow()).isZero();
            assertThat(logged(context)).containsExactlyInAnyOrder(old, recent);
        });
        this.runner.withPropertyValues("delay-task.history.dead-retention=7d").run((context) -> {
            List<Long> dead = logged(context);
            assertThat(context.getBean(DelayTaskJobs.class).purgeHistoryNow()).isOne();
            assertThat(logged(context)).hasSize(1).isSubsetOf(dead);
            assertThat(context.getBean(DelayTaskService.class).findDeadTasks(0, 10)).hasSize(1);
        });
    }

    @Test
    void liveTasksAreNeverPurgedAndStillRunAfterThePurge() {
        long[] live = new long[2];
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            // overdue by far more than the retention: as old as a live task gets
            live[0] = service.addTask(DelayTask.builder(RUNS).build());
            live[1] = service.addTask(DelayTask.builder(RUNS).build());
            long longAgo = now(context) - 90 * DAY;
            jdbc(context).update("UPDATE taskinfo SET execute_time = ?", longAgo);
            jdbc(context).update("UPDATE taskinfo_logs SET execute_time = ?", longAgo);
            List<Long> old = executed(context, 1);
            finishedAgo(context, old, 31 * DAY);

            assertThat(context.getBean(DelayTaskJobs.class).purgeHistoryNow()).isOne();

            assertThat(logged(context)).containsExactlyInAnyOrder(live[0], live[1]);
            assertThat(jdbc(context).queryForList("SELECT task_id FROM taskinfo", Long.class))
                .containsExactlyInAnyOrder(live[0], live[1]);
        });
        this.backend.deleteRedisKeys();
        this.runner.run((context) -> await().atMost(Duration.ofSeconds(10))
            .until(() -> status(context, live[0]) == TaskStatus.EXECUTED
                    && status(context, live[1]) == TaskStatus.EXECUTED));
    }

    @Test
    void tasksFinishedBeforeTheSchemaRecordedFinishingTimesArePurgedByTheirExecuteTime() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            List<Long> tasks = new ArrayList<>(executed(context, 2));
            tasks.addAll(cancelled(context, 2));
            long now = now(context);
            JdbcTemplate jdbc = jdbc(context);
            for (int i = 0; i < tasks.size(); i++) {
                // the even ones due (and so finished) 40 days ago, the odd ones a day ago
                jdbc.update("UPDATE taskinfo_logs SET finished_at = NULL, execute_time = ? WHERE task_id = ?",
                        now - ((i % 2 == 0) ? 40 : 1) * DAY, tasks.get(i));
            }

            assertThat(context.getBean(DelayTaskJobs.class).purgeHistoryNow()).isEqualTo(2);

            assertThat(logged(context)).containsExactlyInAnyOrder(tasks.get(1), tasks.get(3));
        });
    }

    @Test
    void thePurgeJobRunsEveryIntervalUnderItsOwnLockAndNotAtAllWhenDisabled() {
        ApplicationContextRunner withJob = this.runner.withBean(LockNames.class)
            .withPropertyValues("delay-task.listener.enabled=false", "delay-task.history.purge-interval=100ms",
                    "delay-task.history.retention=1h");
        withJob.withPropertyValues("delay-task.history.purge-enabled=false").run((context) -> {
            List<Long> old = executed(context, 1);
            finishedAgo(context, old, 2 * Duration.ofHours(1).toMillis());
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> logged(context).containsAll(old));
            assertThat(context.getBean(LockNames.class).names).doesNotContain("purge");
        });
        withJob.withPropertyValues("delay-task.history.purge-enabled=true").run((context) -> {
            // the one left by the disabled job, and one more while the job runs
            List<Long> old = executed(context, 1);
            finishedAgo(context, old, 2 * Duration.ofHours(1).toMillis());
            List<Long> recent = executed(context, 1);
            // counted once the batch's statement returned, a moment after it committed
            await().atMost(Duration.ofSeconds(10))
                .until(() -> context.getBean(DelayTaskJobs.class).purgedHistoryRows() == 2);
            assertThat(logged(context)).isEqualTo(recent);
            assertThat(context.getBean(LockNames.class).names).contains("purge");
        });
    }

    /**
     * The old rows are generated by one statement; the purge then runs beside a loop that adds a live task and
     * finishes it, again and again. Every batch deletes at most its limit, in a moment; no add or finish waits for
     * the purge, which takes ten times longer than the slowest of them.
     */
    @Test
    void aPurgeOfManyOldRowsGoesInBoundedBatchesWhileLiveTasksAreAddedAndFinishedWithoutWaiting() {
        this.runner.withBean(PurgeBatches.class)
            .withPropertyValues("delay-task.listener.enabled=false")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                JdbcTemplate jdbc = jdbc(context);
                long overdue = service.addTask(DelayTask.builder(RUNS).build());
                long started = System.nanoTime();
                long longAgo = now(context) - 60 * DAY;
                jdbc.update(insertExecutedSeries(), 1_000_000_000_000L, GENERATED, longAgo, longAgo, volume());
                logger.info("Generated " + volume() + " rows in " + millisSince(started) + " ms");
                List<Long> recent = new ArrayList<>();
                List<Long> adds = new ArrayList<>();
                List<Long> finishes = new ArrayList<>();

                long purgeStarted = System.nanoTime();
                CompletableFuture<Long> purge = CompletableFuture
                    .supplyAsync(() -> context.getBean(DelayTaskJobs.class).purgeHistoryNow());
                // an add and a finish at a time, and a pause that waits for the purge to end: a steady stream of
                // live tasks, not a load that would starve the purge of the machine's two cores
                while (!ended(purge, Duration.ofMillis(10))) {
                    long start = System.nanoTime();
                    long id = service.addTask(DelayTask.builder(NO_LISTENER).build());
                    adds.add(millisSince(start));
                    boolean finished;
                    do {
                        start = System.nanoTime();
                        finished = service.poll(NO_LISTENER, 0, (task) -> recent.add(task.getTaskId()));
                        finishes.add(millisSince(start));
                    }
                    while (!finished);
                    assertThat(recent).endsWith(id);
                }
                long purged = purge.get(1, TimeUnit.MINUTES);
                long purgeMillis = millisSince(purgeStarted);

                List<long[]> batches = context.getBean(PurgeBatches.class).batches;
                long slowestBatch = batches.stream().mapToLong((batch) -> batch[1]).max().orElseThrow();
                long slowestAdd = adds.stream().mapToLong(Long::longValue).max().orElseThrow();
                long slowestFinish = finishes.stream().mapToLong(Long::longValue).max().orElseThrow();
                logger.info("Purged " + purged + " rows in " + purgeMillis + " ms, " + batches.size()
                        + " batches (slowest " + slowestBatch + " ms); meanwhile " + adds.size()
                        + " tasks added (slowest " + slowestAdd + " ms) and finished (slowest poll " + slowestFinish
                        + " ms)");
                assertThat(purged).isEqualTo(volume());
                assertThat(batches).as("batches of at most 1,000 rows")
                    .allSatisfy((batch) -> assertThat(batch[0]).isBetween(0L, 1000L))
                    .hasSizeGreaterThanOrEqualTo(volume() / 1000);
                assertThat(adds).as("tasks added and finished during the purge").hasSizeGreaterThanOrEqualTo(5);
                // a tenth of the purge; a second for a purge too quick for a tenth to be above the machine's noise
                long bound = Math.max(purgeMillis / 10, 1000);
                assertThat(slowestBatch).as("slowest batch, against the purge's %s ms", purgeMillis)
                    .isLessThan(bound);
                assertThat(slowestAdd).as("slowest add, against the purge's %s ms", purgeMillis).isLessThan(bound);
                assertThat(slowestFinish).as("slowest finish, against the purge's %s ms", purgeMillis)
                    .isLessThan(bound);
                assertThat(logged(context)).as("the live task and those finished meanwhile")
                    .containsExactlyInAnyOrderElementsOf(concat(recent, overdue));
            });
    }

    private static boolean ended(CompletableFuture<?> future, Duration wait) throws Exception {
        try {
            future.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        }
        catch (TimeoutException ex) {
            return false;
        }
    }

    private static List<Long> concat(List<Long> ids, long id) {
        List<Long> all = new ArrayList<>(ids);
        all.add(id);
        return all;
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** Tasks run by {@code poll}, through the same acknowledgement as a listener's. */
    static List<Long> executed(AssertableApplicationContext context, int count) {
        DelayTaskService service = context.getBean(DelayTaskService.class);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            service.addTask(DelayTask.builder(NO_LISTENER).build());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.poll(NO_LISTENER, 0, (task) -> ids.add(task.getTaskId())));
        }
        return ids;
    }

    private static List<Long> cancelled(AssertableApplicationContext context, int count) {
        DelayTaskService service = context.getBean(DelayTaskService.class);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long id = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            assertThat(service.cancelTask(id)).isTrue();
            ids.add(id);
        }
        return ids;
    }

    private static long deadTask(AssertableApplicationContext context) {
        long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(FAILS).build());
        await().atMost(Duration.ofSeconds(10)).until(() -> status(context, id) == TaskStatus.DEAD);
        return id;
    }

    /** Moves the finishing time of tasks that much into the past. */
    static void finishedAgo(AssertableApplicationContext context, List<Long> ids, long millis) {
        for (long id : ids) {
            assertThat(jdbc(context).update("UPDATE taskinfo_logs SET finished_at = finished_at - ? WHERE task_id = ?",
                    millis, id)).isOne();
        }
    }

    static List<Long> logged(AssertableApplicationContext context) {
        return jdbc(context).queryForList("SELECT task_id FROM taskinfo_logs ORDER BY task_id", Long.class);
    }

    private static long now(AssertableApplicationContext context) {
        return context.getBean(TaskStore.class).currentTimeMillis();
    }

    static JdbcTemplate jdbc(AssertableApplicationContext context) {
        return new JdbcTemplate(context.getBean(DataSource.class));
    }

    private static TaskStatus status(AssertableApplicationContext context, long id) {
        Integer code = jdbc(context).queryForObject("SELECT status FROM taskinfo_logs WHERE task_id = ?",
                Integer.class, id);
        return TaskStatus.fromCode(code);
    }

    private static Long finishedAt(AssertableApplicationContext context, long id) {
        Map<String, Object> row = jdbc(context).queryForMap("SELECT finished_at FROM taskinfo_logs WHERE task_id = ?",
                id);
        Object value = row.values().iterator().next();
        return (value != null) ? ((Number) value).longValue() : null;
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        @DelayTaskListener(taskType = RUNS)
        void runs(DelayTask task) {
        }

        private volatile CountDownLatch failuresHeld = new CountDownLatch(0);

        /** The next failures wait until the latch returned is counted down (at most 10 s). */
        CountDownLatch holdFailures() {
            this.failuresHeld = new CountDownLatch(1);
            return this.failuresHeld;
        }

        @DelayTaskListener(taskType = FAILS, maxAttempts = 1)
        void fails(DelayTask task) throws InterruptedException {
            this.failuresHeld.await(10, TimeUnit.SECONDS);
            throw new IllegalStateException("fails for good");
        }

    }

    /** Each batch of the purge: rows deleted and milliseconds taken. */
    static class PurgeBatches extends TaskStoreInterceptor {

        final List<long[]> batches = new CopyOnWriteArrayList<>();

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            long start = System.nanoTime();
            Object result = store.proceed();
            if (method.equals("purgeFinished")) {
                this.batches.add(new long[] { (Integer) result, millisSince(start) });
            }
            return result;
        }

    }

    /** The names of the locks the jobs try. */
    static class LockNames implements BeanPostProcessor {

        final List<String> names = new CopyOnWriteArrayList<>();

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (!(bean instanceof DistributedLocks locks)) {
                return bean;
            }
            return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { DistributedLocks.class },
                    (proxy, method, args) -> {
                        if (method.getName().equals("tryLock")) {
                            this.names.add((String) args[0]);
                        }
                        try {
                            return method.invoke(locks, args);
                        }
                        catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
        }

    }

}
