package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.util.OptionalLong;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.DelayTaskSystem;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.InstanceFigures;
import io.github.delaytask.benchmark.system.InstanceJvms;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.TaskKind;

/**
 * A steady load on several instances: tasks falling due evenly over 64 queues, run by four instance JVMs, added
 * ahead by an instance of this JVM (as the lateness scenario adds them); lateness, and what each task costs in
 * claim statements and database transactions. delay-task only.
 */
public final class SteadyLoadScenario implements Scenario {

    private static final int JVMS = 4;

    /** The stream run before the measured one, at its rate, after the warm-up due at once. */
    private static final Duration STEADY_WARM_UP = Duration.ofSeconds(10);

    /** PostgreSQL publishes a backend's counters within 10 s of its going idle. */
    private static final Duration STATISTICS_DELAY = Duration.ofSeconds(11);

    /** How long after the last task's due time the instances may take to run them all. */
    private static final Duration TIMEOUT_AFTER_LAST = Duration.ofSeconds(60);

    private final Size size;

    public SteadyLoadScenario(Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "steady-load";
    }

    private int tasks() {
        return (int) (this.size.instances().steadyRate() * this.size.instances().steadyDuration().toSeconds());
    }

    @Override
    public String definition() {
        return String.format("**steady-load** (delay-task only): %,d tasks due at %,d a second, evenly, round robin "
                + "over the 64 queues of many-queues, run by %d instance JVMs, added ahead in batches by %d threads "
                + "of an instance in the benchmark's JVM with no listeners, on a database of the run's own (on "
                + "PostgreSQL too: a database, not a schema) and a key prefix all share; each JVM first runs %,d "
                + "tasks due at once, then the JVMs run the stream itself for %d s. Lateness as in the lateness scenario, over all JVMs. Claim statements per task run, "
                + "counted as in many-queues; should the instances fall behind, tasks not run %d s after the last "
                + "was due are left out (and counted in the lateness cell). Transactions per task run, two ways: "
                + "as the instance JVMs' data sources count them (each commit, and each statement run in "
                + "autocommit, read-only ones included; a JDBC batch is one), and on PostgreSQL the `xact_commit` "
                + "delta of `pg_stat_database` for that database (every connection to it: the four JVMs and the "
                + "adding instance, idle by then). Both from just before the first task is due (at least %d s "
                + "after the last add, so that PostgreSQL has published the adds) to %d s after the last handler "
                + "call, idle time included. MariaDB has no counter of its own per database (`Com_commit` is the "
                + "whole server's, and leaves out autocommit statements), so only the first count is shown there.",
                tasks(), this.size.instances().steadyRate(), JVMS, Size.PRODUCERS, this.size.warmUpTasks(),
                STEADY_WARM_UP.toSeconds(), TIMEOUT_AFTER_LAST.toSeconds(), STATISTICS_DELAY.toSeconds() + 2, STATISTICS_DELAY.toSeconds());
    }

    private String row(String what) {
        return String.format("steady-load: %,d/s over 64 queues for %d s, %d instance JVMs: %s",
                this.size.instances().steadyRate(), this.size.instances().steadyDuration().toSeconds(), JVMS, what);
    }

    private String[] rows() {
        return new String[] { row("lateness p50 / p99 / max (ms)"), row("claim statements per task"),
                row("transactions per task, counted by the instances"), row("PostgreSQL xact_commit per task") };
    }

    @Override
    public void rows(Report report) {
        for (String row : rows()) {
            report.row(row);
        }
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        String[] rows = rows();
        if (!(system instanceof DelayTaskSystem delayTask)) {
            for (String row : rows) {
                report.put(row, system.name(), "n/a");
            }
            return;
        }
        int tasks = tasks();
        int rate = this.size.instances().steadyRate();
        try (DelayTaskSystem.Workspace workspace = delayTask.workspace("steady", true);
                Instance adder = workspace.startAdding();
                InstanceJvms runners = InstanceJvms.start(JVMS, InstanceJvms.Listeners.QUEUES,
                        workspace.properties(), delayTask.runName())) {
            InstanceJvmRuns.warmUp(adder, runners, TaskKind.QUEUES, this.size);
            InstanceJvmRuns.warmUpSteady(adder, runners, TaskKind.QUEUES, rate, STEADY_WARM_UP);
            double fillRate = Burst.fillRate(adder, Math.max(1000, tasks / 10));
            long lead = (long) (tasks / fillRate * 1500) + STATISTICS_DELAY.toMillis() + 2000;
            long first = System.currentTimeMillis() + lead;
            Producers.batches(adder, tasks, Size.PRODUCERS,
                    (i) -> new BenchTask(TaskKind.QUEUES, first + i * 1000L / rate));
            long overrun = System.currentTimeMillis() - first;
            Thread.sleep(Math.max(0, first - 200 - System.currentTimeMillis()));
            OptionalLong before = workspace.transactionsCommitted();
            runners.reset();
            Duration timeout = this.size.instances().steadyDuration().plus(TIMEOUT_AFTER_LAST);
            boolean complete = runners.awaitHandled(tasks, timeout);
            Thread.sleep(STATISTICS_DELAY.toMillis());
            OptionalLong after = workspace.transactionsCommitted();
            InstanceFigures figures = runners.figures();
            long last = first + (tasks - 1) * 1000L / rate;
            boolean acknowledged = !adder.anyUnfinished(TaskKind.QUEUES, last);
            String lateness = Format.lateness(figures.lateness());
            report.put(rows[0], system.name(), complete ? lateness
                    : lateness + " (" + Format.count(tasks - figures.handled()) + " never ran)");
            // per task run: a system that falls behind has run fewer than were due
            double ran = Math.max(1, figures.handled());
            report.put(rows[1], system.name(), String.format("%.3f", figures.claims() / ran));
            report.put(rows[2], system.name(), String.format("%.3f", figures.transactions() / ran));
            report.put(rows[3], system.name(), (before.isPresent() && after.isPresent())
                    ? String.format("%.3f", (after.getAsLong() - before.getAsLong()) / ran) : "n/a");
            if (overrun > 0) {
                report.note(system.name() + ", steady-load: the last tasks were added " + overrun
                        + " ms after the first was due");
            }
            if (figures.claims() == 0 && figures.handled() > 0) {
                report.note(system.name() + ", steady-load: no claim statement was recognised (has the claim's SQL "
                        + "changed? see StatementCounter)");
            }
            if (!acknowledged) {
                report.note(system.name() + ", steady-load: some completions were not stored "
                        + STATISTICS_DELAY.toSeconds() + " s after the last handler call");
            }
        }
    }

}
