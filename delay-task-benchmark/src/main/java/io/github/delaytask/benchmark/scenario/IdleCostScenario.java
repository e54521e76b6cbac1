package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.DelayTaskSystem;
import io.github.delaytask.benchmark.system.InstanceFigures;
import io.github.delaytask.benchmark.system.InstanceJvms;
import io.github.delaytask.benchmark.system.PrivateRedis;
import io.github.delaytask.benchmark.system.QueueSystem;

/**
 * What an idle instance costs: one instance JVM with the 64 listeners of the many-queues scenario and no task, on a
 * Redis server of the benchmark's own, so that its command counters show that instance's commands alone.
 * delay-task only.
 */
public final class IdleCostScenario implements Scenario {

    private static final Duration SETTLE = Duration.ofSeconds(10);

    private final Size size;

    public IdleCostScenario(Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "idle-cost";
    }

    @Override
    public String definition() {
        return String.format("**idle-cost** (delay-task only): one instance JVM with the 64 listeners of "
                + "many-queues, default settings, no task, on a `redis-server` the benchmark starts on a free port "
                + "for this alone (`--save \"\" --appendonly no`) and on an empty schema; after %d s of settling "
                + "once started, Redis commands a second over %d s: the sum over every command of the `calls` "
                + "delta of `INFO commandstats` (commands that scripts run are counted there too), less the "
                + "benchmark's own one `INFO`. Database transactions a second over the same time, as the instance's "
                + "data source counts them (see steady-load). The reload runs every 60 s, so a window of less may "
                + "hold one or none.", SETTLE.toSeconds(), this.size.instances().idleDuration().toSeconds());
    }

    private String commandsRow() {
        return String.format("idle-cost: 64 listeners, no task: Redis commands/s over %d s",
                this.size.instances().idleDuration().toSeconds());
    }

    private static String transactionsRow() {
        return "idle-cost: database transactions/s";
    }

    @Override
    public void rows(Report report) {
        report.row(commandsRow());
        report.row(transactionsRow());
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        if (!(system instanceof DelayTaskSystem delayTask)) {
            report.put(commandsRow(), system.name(), "n/a");
            report.put(transactionsRow(), system.name(), "n/a");
            return;
        }
        Duration window = this.size.instances().idleDuration();
        try (PrivateRedis redis = PrivateRedis.start(delayTask.runName());
                DelayTaskSystem.Workspace workspace = delayTask.onRedis(redis.admin()).workspace("idle");
                InstanceJvms instance = InstanceJvms.start(1, InstanceJvms.Listeners.QUEUES,
                        workspace.properties(), delayTask.runName())) {
            Thread.sleep(SETTLE.toMillis());
            instance.reset();
            Map<String, Long> before = redis.admin().commandCalls();
            long start = System.nanoTime();
            Thread.sleep(window.toMillis());
            Map<String, Long> after = redis.admin().commandCalls();
            double seconds = (System.nanoTime() - start) / 1e9;
            InstanceFigures figures = instance.figures();
            Map<String, Long> delta = new TreeMap<>();
            after.forEach((command, calls) -> delta.put(command, calls - before.getOrDefault(command, 0L)));
            delta.merge("info", -1L, Long::sum); // the INFO that took "before"
            delta.values().removeIf((calls) -> calls <= 0);
            long total = delta.values().stream().mapToLong(Long::longValue).sum();
            report.put(commandsRow(), system.name(), String.format("%,.1f/s", total / seconds));
            report.put(transactionsRow(), system.name(), String.format("%,.1f/s", figures.transactions() / seconds));
            report.note(system.name() + ", idle-cost: top Redis commands a second: " + top(delta, seconds));
        }
    }

    private static String top(Map<String, Long> delta, double seconds) {
        if (delta.isEmpty()) {
            return "none";
        }
        return delta.entrySet()
            .stream()
            .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
            .limit(6)
            .map((entry) -> String.format("%s %,.1f", entry.getKey(), entry.getValue() / seconds))
            .collect(Collectors.joining(", "));
    }

}
