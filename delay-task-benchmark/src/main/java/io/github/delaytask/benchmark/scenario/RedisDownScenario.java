package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.DelayTaskSystem;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.PrivateRedis;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.TaskKind;
import io.github.delaytask.benchmark.system.TaskSink;
import org.HdrHistogram.Histogram;

/**
 * Redis stopped while tasks fall due: one instance in this JVM, default settings, on a {@code redis-server} the
 * benchmark starts for this alone. Tasks fall due at {@value #RATE} a second, each at a millisecond of its own; the
 * server's process is ended for {@link #OUTAGE} and then started again, empty, on the same port. The tasks due while
 * it was down are dispatched from the database, those due after it from Redis again once the recovery has brought
 * them back. delay-task only: the other systems have no database to fall back on, or no Redis to lose.
 */
public final class RedisDownScenario implements Scenario {

    static final int RATE = 100;

    static final Duration BEFORE = Duration.ofSeconds(10);

    static final Duration OUTAGE = Duration.ofSeconds(30);

    static final Duration AFTER = Duration.ofSeconds(20);

    /** Between the last add and the first task due: the adds go to Redis. */
    private static final Duration LEAD = Duration.ofSeconds(3);

    @Override
    public String name() {
        return "redis-down";
    }

    @Override
    public String definition() {
        return String.format("**redis-down** (delay-task only): one instance in the benchmark's JVM, default "
                + "settings (database dispatch every 500 ms, claim timeout 2 s), on a `redis-server` the benchmark "
                + "starts for this alone; %,d tasks due at %d a second, each at a millisecond of its own, added ahead "
                + "in batches. %d s after the first is due, the server's process is ended; %d s later a new one "
                + "starts, empty, on the same port. Lateness (handler start minus execute time, wall clock) of the "
                + "tasks due while it was down, and of the others; tasks run more than once, and never.",
                tasks(), RATE, BEFORE.toSeconds(), OUTAGE.toSeconds());
    }

    private static int tasks() {
        return (int) (RATE * BEFORE.plus(OUTAGE).plus(AFTER).toSeconds());
    }

    private static String outageRow() {
        return String.format("redis-down: tasks due while Redis is down for %d s: p50 / p99 / max (ms)",
                OUTAGE.toSeconds());
    }

    private static String othersRow() {
        return "redis-down: tasks due before and after: p50 / p99 / max (ms)";
    }

    private static String runsRow() {
        return "redis-down: tasks run twice / never";
    }

    @Override
    public void rows(Report report) {
        report.row(outageRow());
        report.row(othersRow());
        report.row(runsRow());
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        if (!(system instanceof DelayTaskSystem delayTask)) {
            report.put(outageRow(), system.name(), "n/a");
            report.put(othersRow(), system.name(), "n/a");
            report.put(runsRow(), system.name(), "n/a");
            return;
        }
        Runs runs = new Runs();
        int tasks = tasks();
        try (PrivateRedis redis = PrivateRedis.start(delayTask.runName());
                Instance instance = delayTask.onRedis(redis.admin()).start(runs)) {
            long start = System.currentTimeMillis();
            long first = start + LEAD.toMillis();
            // every task at a millisecond of its own: its execute time names it
            long spacing = 1000 / RATE;
            Producers.batches(instance, tasks, Size.PRODUCERS,
                    (i) -> new BenchTask(TaskKind.TASK, first + i * spacing));
            long added = System.currentTimeMillis();
            long down = first + BEFORE.toMillis();
            sleepUntil(down);
            long stoppedAt = System.currentTimeMillis();
            redis.stop();
            sleepUntil(stoppedAt + OUTAGE.toMillis());
            redis.restart();
            long startedAt = System.currentTimeMillis();
            long last = first + (tasks - 1) * spacing;
            long deadline = Math.max(last, startedAt) + Duration.ofSeconds(60).toMillis();
            while (runs.distinct() < tasks && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            Histogram outage = new Histogram(3);
            Histogram others = new Histogram(3);
            runs.lateness.forEach((executeTime, micros) -> ((executeTime >= stoppedAt && executeTime < startedAt)
                    ? outage : others).recordValue(micros));
            report.put(outageRow(), system.name(), Format.lateness(outage) + " (" + Format.count(outage.getTotalCount())
                    + " tasks)");
            report.put(othersRow(), system.name(), Format.lateness(others));
            report.put(runsRow(), system.name(), Format.count(runs.twice()) + " / "
                    + Format.count(tasks - runs.distinct()));
            report.note(String.format("%s, redis-down: the adds took %d ms, the first task was due %d ms after "
                    + "they began; Redis was down from %d ms to %d ms after the first was due", system.name(),
                    added - start, first - start,
                    stoppedAt - first, startedAt - first));
        }
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
    }

    /** Each task's runs, by its execute time, and the lateness of its first run. */
    private static final class Runs implements TaskSink {

        private final Map<Long, AtomicInteger> counts = new ConcurrentHashMap<>();

        private final Map<Long, Long> lateness = new ConcurrentHashMap<>();

        @Override
        public void handled(TaskKind kind, long executeTimeMillis) {
            Instant now = Instant.now();
            long micros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000 - executeTimeMillis * 1000;
            this.lateness.putIfAbsent(executeTimeMillis, Math.max(0, micros));
            this.counts.computeIfAbsent(executeTimeMillis, (time) -> new AtomicInteger()).incrementAndGet();
        }

        int distinct() {
            return this.counts.size();
        }

        long twice() {
            return this.counts.values().stream().filter((count) -> count.get() > 1).count();
        }

    }

}
