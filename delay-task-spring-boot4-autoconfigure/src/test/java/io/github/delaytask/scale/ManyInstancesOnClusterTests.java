package io.github.delaytask.scale;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.testsupport.WorkerProcess;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Four application instances, each a JVM of its own, share a Redis Cluster (three masters, three replicas), one
 * PostgreSQL schema, 64 (type, priority) pairs and 100,000 tasks due over 25 seconds: every task runs exactly once,
 * and the report shows how the work, the Redis load and the reload and refresh jobs spread over the instances and
 * the masters.
 * <p>
 * The tasks are added by an application in the test's JVM that has no listener and takes no part in the jobs.
 * {@code -Ddelaytask.scale.tasks=N} changes the number of tasks. The report goes to the test's output
 * ({@code target/surefire-reports}) as lines starting with {@code scale:}; each worker's log is in
 * {@code target/worker-processes}.
 */
@Tag("scale")
class ManyInstancesOnClusterTests {

    private static final int TASKS = Integer.getInteger("delaytask.scale.tasks", 100_000);

    private static final int BATCH = 1000;

    private static final int ADD_THREADS = 4;

    private static final List<String> WORKER_IDS = List.of("worker-1", "worker-2", "worker-3", "worker-4");

    /** Tasks fall due at random times in a window of this length, starting this long after the first add. */
    private static final Duration FIRST_DUE = Duration.ofSeconds(5);

    private static final Duration DUE_SPREAD = Duration.ofSeconds(25);

    /**
     * The workers' reload interval: far shorter than the default, so that full reloads of the preload window run while
     * the workers are busy.
     */
    private static final Duration RELOAD_INTERVAL = Duration.ofSeconds(20);

    private static final Duration ALL_EXECUTED_WITHIN = Duration.ofSeconds(150);

    /** Longer than the default idle poll interval, so that every idle queue is looked at in it. */
    private static final Duration IDLE_WINDOW = Duration.ofSeconds(40);

    private static final List<String> WORKER_JVM_OPTIONS = List.of("-Xmx384m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

    private static final String KEY_PREFIX = "delay-task-scale-" + UUID.randomUUID().toString().substring(0, 8);

    private static final Map<String, WorkerProcess> workers = new LinkedHashMap<>();

    private static ScaleRedisCluster cluster;

    private static ScaleSchema schema;

    private static ConfigurableApplicationContext producer;

    private static String startUp;

    @BeforeAll
    static void startClusterDatabaseAndInstances() {
        long started = System.currentTimeMillis();
        cluster = ScaleRedisCluster.start();
        long clusterUp = System.currentTimeMillis();
        schema = new ScaleSchema();
        // PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against itself: instances creating the tables at the
        // same moment can fail, so the producer creates them before the workers start
        producer = new SpringApplicationBuilder(ScaleProducer.class).web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .properties(properties("producer"))
            .properties(Map.of("delay-task.listener.enabled", "false", "spring.datasource.hikari.maximum-pool-size",
                    Integer.toString(ADD_THREADS + 1)))
            .run();
        long producerUp = System.currentTimeMillis();
        WORKER_IDS.forEach((id) -> workers.put(id, startWorker(id)));
        workers.values().forEach((worker) -> worker.awaitOutput(ScaleWorker.READY, Duration.ofSeconds(120)));
        startUp = String.format("start-up: cluster %s, producer %s, then the workers %s",
                ScaleReport.seconds(clusterUp - started), ScaleReport.seconds(producerUp - clusterUp),
                ScaleReport.seconds(System.currentTimeMillis() - producerUp));
    }

    @AfterAll
    static void stopEverything() {
        try {
            workers.values().forEach(WorkerProcess::close);
        }
        finally {
            try {
                if (producer != null) {
                    producer.close();
                }
            }
            finally {
                try {
                    if (schema != null) {
                        schema.close();
                    }
                }
                finally {
                    if (cluster != null) {
                        cluster.close();
                    }
                }
            }
        }
    }

    @Test
    void fourInstancesRunEveryTaskOnceAndShareTheWork() throws SQLException, InterruptedException {
        RunFigures figures = new RunFigures(schema);
        ScaleReport report = new ScaleReport(figures, cluster, KEY_PREFIX, WORKER_IDS);
        report.add("%,d tasks over %d (type, priority) pairs, due at random from %d s to %d s after the first add, "
                + "added in batches of %,d from %d threads; %d worker JVMs; Redis Cluster of 3 masters and 3 "
                + "replicas; PostgreSQL", TASKS, PairListeners.TYPES * PairListeners.PRIORITIES, FIRST_DUE.toSeconds(),
                FIRST_DUE.plus(DUE_SPREAD).toSeconds(), BATCH, ADD_THREADS, WORKER_IDS.size());
        report.add(startUp);
        Counters before = Counters.read(cluster, workers, figures);
        try {
            DatabaseWaits waits = new DatabaseWaits(schema.jdbcUrl("scale-waits"), schema.user(),
                    schema.applicationName("worker-") + "%");
            long addedFrom;
            long addedTo;
            long executedAt;
            try {
                addedFrom = System.currentTimeMillis();
                addTasks(producer.getBean(DelayTaskService.class), addedFrom);
                addedTo = System.currentTimeMillis();
                awaitAllExecuted(figures, report);
                executedAt = System.currentTimeMillis();
            }
            finally {
                waits.close();
            }
            Counters after = Counters.read(cluster, workers, figures);
            report.outcome(TASKS, addedFrom, addedTo, executedAt);
            report.work(TASKS, before, after, addedFrom);
            report.claims(TASKS, before, awaitWorkerFigures(after, figures, executedAt));
            report.redis(before, after);
            report.locks(addedFrom, executedAt, RELOAD_INTERVAL);
            report.database(before, after, waits, addedFrom, executedAt);
            Counters idleFrom = Counters.read(cluster, workers, figures);
            // a window to count the idle instances' commands in, longer than their idle poll interval: not a wait
            // for anything to happen
            Thread.sleep(IDLE_WINDOW.toMillis());
            report.idle(idleFrom, Counters.read(cluster, workers, figures), IDLE_WINDOW,
                    PairListeners.TYPES * PairListeners.PRIORITIES);
        }
        finally {
            report.print();
        }

        assertThat(figures.tasks()).isEqualTo(TASKS);
        assertThat(figures.executed()).isEqualTo(TASKS);
        assertThat(figures.live()).as("tasks left in taskinfo").isZero();
        assertThat(figures.lost()).as("lost tasks").isZero();
        assertThat(figures.duplicated()).as("tasks run more than once").isZero();
        assertThat(figures.runs()).isEqualTo(TASKS);
        assertThat(figures.runsPerWorker()).as("every worker ran at least a fifth of its fair share")
            .containsOnlyKeys(WORKER_IDS)
            .allSatisfy((worker, runs) -> assertThat(runs).isGreaterThanOrEqualTo(TASKS / WORKER_IDS.size() / 5));
        Counters after = Counters.read(cluster, workers, figures);
        assertThat(cluster.masterPorts()).as("every master ran queue scripts")
            .allSatisfy((port) -> assertThat(after.callsSince(before, port, "evalsha")).isPositive());
        assertThat(figures.lockNames()).as("the only locks tried are the jobs'")
            .isSubsetOf("preload-feed", "full-reload", "refresh", "purge", "recovery");
    }

    private static Map<String, Object> properties(String applicationName) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.data.redis.cluster.nodes", cluster.nodesProperty());
        properties.put("spring.data.redis.timeout", "2s");
        properties.put("spring.datasource.url", schema.jdbcUrl(applicationName));
        properties.put("spring.datasource.username", schema.user());
        properties.put("spring.datasource.password", "");
        properties.put("delay-task.redis.key-prefix", KEY_PREFIX);
        properties.put("delay-task.jdbc.initialize-schema", "always");
        // the producer's too: one pace of the safety net in the report
        properties.put("delay-task.reload-interval", RELOAD_INTERVAL.toSeconds() + "s");
        return properties;
    }

    private static WorkerProcess startWorker(String workerId) {
        List<String> args = new ArrayList<>();
        properties(workerId).forEach((key, value) -> args.add("--" + key + "=" + value));
        args.add("--" + PairListeners.WORKER_ID + "=" + workerId);
        args.add("--mybatis-plus.global-config.banner=false");
        args.add("--logging.level.root=WARN");
        args.add("--logging.level.io.github.delaytask=INFO");
        return WorkerProcess.start("scale-" + workerId, ScaleWorker.class, WORKER_JVM_OPTIONS, args);
    }

    /**
     * Add the tasks in batches from a few threads, spread evenly over the 64 pairs and at random over the due
     * window.
     */
    private static void addTasks(DelayTaskService service, long from) throws InterruptedException {
        ExecutorService executor = Executors.newFixedThreadPool(ADD_THREADS);
        try {
            List<Future<?>> batches = new ArrayList<>();
            for (int first = 0; first < TASKS; first += BATCH) {
                int start = first;
                batches.add(executor.submit(() -> service.addTasks(batch(start, from))));
            }
            for (Future<?> batch : batches) {
                batch.get();
            }
        }
        catch (ExecutionException ex) {
            throw new IllegalStateException("Adding tasks failed", ex.getCause());
        }
        finally {
            executor.shutdownNow();
        }
    }

    private static List<DelayTask> batch(int first, long from) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int pairs = PairListeners.TYPES * PairListeners.PRIORITIES;
        List<DelayTask> batch = new ArrayList<>(BATCH);
        for (int i = first; i < Math.min(TASKS, first + BATCH); i++) {
            int pair = i % pairs;
            long due = from + FIRST_DUE.toMillis() + random.nextLong(DUE_SPREAD.toMillis());
            batch.add(DelayTask.builder(pair / PairListeners.PRIORITIES)
                .priority(pair % PairListeners.PRIORITIES)
                .executeAt(Instant.ofEpochMilli(due))
                .build());
        }
        return batch;
    }

    private static void awaitAllExecuted(RunFigures figures, ScaleReport report) {
        try {
            await("all tasks executed").atMost(ALL_EXECUTED_WITHIN).pollInterval(Duration.ofSeconds(1)).until(() -> {
                workers.values().forEach((worker) -> {
                    if (!worker.isAlive()) {
                        throw new IllegalStateException(worker + " died:\n" + worker.output());
                    }
                });
                return figures.executed() == TASKS;
            });
        }
        catch (ConditionTimeoutException ex) {
            report.add("timed out: %,d of %,d executed, %,d handler runs, by worker %s", figures.executed(), TASKS,
                    figures.runs(), figures.runsPerWorker());
            throw ex;
        }
    }

    /** The counters with the figures each worker wrote after the given instant. */
    private static Counters awaitWorkerFigures(Counters counters, RunFigures figures, long after) {
        Map<String, RunFigures.WorkerFigures> written = await("the workers' figures").atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(200))
            .until(figures::workerFigures, (all) -> all.size() == WORKER_IDS.size()
                    && all.values().stream().allMatch((worker) -> worker.writtenAt() > after));
        return new Counters(counters.redisCalls(), counters.redisCpu(), counters.workerCpu(), written,
                counters.commits());
    }

}
