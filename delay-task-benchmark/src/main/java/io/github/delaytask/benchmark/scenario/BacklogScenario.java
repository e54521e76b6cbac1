package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.IntFunction;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.RedisAdmin;
import io.github.delaytask.benchmark.system.TaskKind;

/**
 * A large backlog of pending tasks due over the next 24 hours, in random order: what it costs in Redis memory, how
 * long one reload takes, and the add and dispatch rates on top of it. The statements one reload sends are
 * EXPLAINed with the backlog in the table.
 */
public final class BacklogScenario implements Scenario {

    private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();

    /** A prime above every backlog size, so that {@code i * PRIME % n} visits each slot once, out of order. */
    private static final long PRIME = 1_000_000_007L;

    private static final int RELOADS = 5;

    /** How long the feed is watched reading what enters the window, at its own pace. */
    private static final Duration FEED_WATCH = Duration.ofSeconds(60);

    private final Size size;

    private final RedisAdmin redis;

    public BacklogScenario(Size size, RedisAdmin redis) {
        this.size = size;
        this.redis = redis;
    }

    @Override
    public String name() {
        return "backlog";
    }

    @Override
    public String definition() {
        return String.format("**backlog**: %,d pending tasks due at random over the next 24 h, added in batches by "
                + "%d threads. Redis memory after minus before: `used_memory` of `INFO memory` (the whole server, so "
                + "others' use of that Redis shows) and the sum of `MEMORY USAGE` over the system's own keys. Reload: "
                + "`DelayTaskJobs.reloadNow()`, %d times. The feed: for %d s after the reloads, the rows its passes "
                + "read (`DelayTaskJobs.fedRows()`, delay-task's job every second) against the tasks that entered the "
                + "preload window meanwhile (the backlog is evenly spaced: the watch's share of 24 h). Then single "
                + "adds and a burst as in dispatch, on top of the backlog.", this.size.backlogTasks(), Size.PRODUCERS,
                RELOADS, FEED_WATCH.toSeconds());
    }

    private String prefix() {
        return String.format("backlog of %,d over 24 h: ", this.size.backlogTasks());
    }

    private List<String> rowNames() {
        return List.of(prefix() + "added in batches of " + Size.BATCH_SIZE + ", " + Size.PRODUCERS + " threads",
                prefix() + "Redis used_memory, after minus before", prefix() + "Redis memory of the system's keys",
                prefix() + "one reload (ms): first / median of " + RELOADS,
                prefix() + String.format("the feed over %d s: rows read / tasks entering the window",
                        FEED_WATCH.toSeconds()),
                prefix() + String.format("%,d more single adds, %d threads", this.size.backlogAdds(), Size.ADD_THREADS),
                prefix() + String.format("%,d more due at once, first handler call to last ack",
                        this.size.backlogBurst()));
    }

    @Override
    public void rows(Report report) {
        rowNames().forEach(report::row);
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        List<String> rows = rowNames();
        String name = system.name();
        HandledTasks handled = new HandledTasks();
        int tasks = this.size.backlogTasks();
        try (Instance instance = WarmUp.start(system, handled, this.size)) {
            long usedBefore = this.redis.usedMemory();
            OptionalLong keysBefore = instance.redisBytes();
            long start = System.currentTimeMillis() + 1000;
            IntFunction<BenchTask> backlog = (i) -> new BenchTask(TaskKind.BACKLOG,
                    start + (i * PRIME % tasks) * DAY_MILLIS / tasks);
            Duration fill = Producers.batches(instance, tasks, Size.PRODUCERS, backlog);
            double fillRate = Producers.perSecond(tasks, fill);
            report.put(rows.get(0), name, Format.rate(fillRate));
            OptionalLong keysAfter = instance.redisBytes();
            report.put(rows.get(1), name, keysAfter.isPresent()
                    ? Format.bytes(this.redis.usedMemory() - usedBefore) : "n/a");
            report.put(rows.get(2), name, keysAfter.isPresent()
                    ? Format.bytes(keysAfter.getAsLong() - keysBefore.orElse(0)) : "n/a");
            reload(instance, system, report, rows.get(3));
            feed(instance, name, report, rows.get(4));
            Duration singles = Producers.singles(instance, this.size.backlogAdds(), Size.ADD_THREADS,
                    (i) -> backlog.apply(i * 7919));
            report.put(rows.get(5), name, Format.rate(Producers.perSecond(this.size.backlogAdds(), singles)));
            Burst.Result burst = Burst.run(instance, handled, this.size.backlogBurst(), fillRate,
                    Duration.ofSeconds(2), (due) -> {
                    });
            report.put(rows.get(6), name, burst.cell());
            if (burst.problem() != null) {
                report.note(name + ", backlog: " + burst.problem());
            }
        }
    }

    /** A window to watch the feed in: not a wait for anything to happen. */
    private void feed(Instance instance, String name, Report report, String row) throws InterruptedException {
        OptionalLong before = instance.fedRows();
        if (before.isEmpty()) {
            report.put(row, name, "n/a");
            return;
        }
        Thread.sleep(FEED_WATCH.toMillis());
        long read = instance.fedRows().getAsLong() - before.getAsLong();
        long entered = this.size.backlogTasks() * FEED_WATCH.toMillis() / DAY_MILLIS;
        report.put(row, name, String.format("%,d / %,d", read, entered));
    }

    private void reload(Instance instance, QueueSystem system, Report report, String row) {
        instance.forgetStatements();
        instance.recordStatements(true);
        List<Instance.Reload> reloads = new ArrayList<>();
        instance.reload().ifPresent(reloads::add);
        instance.recordStatements(false);
        if (reloads.isEmpty()) {
            report.put(row, system.name(), "n/a");
            return;
        }
        for (int i = 1; i < RELOADS; i++) {
            instance.reload().ifPresent(reloads::add);
        }
        List<Duration> durations = new ArrayList<>(reloads.stream().map(Instance.Reload::duration).toList());
        Collections.sort(durations);
        report.put(row, system.name(), Format.millis(reloads.get(0).duration()) + " / "
                + Format.millis(durations.get(durations.size() / 2)));
        report.note(String.format("%s, backlog: a reload brought %,d tasks due within the preload window into Redis",
                system.name(), reloads.get(0).tasks()));
        String title = String.format("backlog, %s: plans of one reload's statements with %,d tasks in the table",
                system.name(), this.size.backlogTasks());
        instance.explainRecorded().forEach((plan) -> report.detail(title, plan));
    }

}
