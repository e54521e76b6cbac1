package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.util.Locale;
import java.util.OptionalDouble;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.DelayTaskSystem;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.InstanceFigures;
import io.github.delaytask.benchmark.system.InstanceJvms;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.TaskKind;

/**
 * A burst due at once, as in the dispatch scenario, spread evenly over 64 queues (16 task types, 4 priorities
 * each) with one listener per queue, run by one instance JVM and by four; and, for the ratio, the same burst in one
 * queue on one instance JVM. An instance of this JVM with no listeners adds the tasks. delay-task only.
 */
public final class ManyQueuesScenario implements Scenario {

    private final Size size;

    public ManyQueuesScenario(Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "many-queues";
    }

    @Override
    public String definition() {
        return String.format("**many-queues** (delay-task only): %,d tasks all due at one instant, spread round robin "
                + "over 64 queues (task types 100 to 115, priorities 0 to 3), one `@DelayTaskListener` per queue "
                + "doing nothing, run by 1 and by 4 instance JVMs (separate processes on the benchmark's class path, "
                + "default settings, heap at most 1 GiB each); an instance in the benchmark's JVM with no listeners "
                + "(`delay-task.listener.enabled=false`) adds them, in batches by %d threads ahead of the due time "
                + "(twice the expected fill time plus 3 s), on a schema and key prefix that all of them share; each "
                + "JVM first runs %,d tasks of the same queues. Tasks a second from the first handler call in any "
                + "JVM to the last acknowledgement (no `taskinfo` row left, polled every 2 ms), on the wall clock. "
                + "Tasks per claim: "
                + "handler calls divided by claim statements, counted in each instance JVM's data source as the "
                + "executions of an `UPDATE` of `taskinfo` that sets `lease_until` (a JDBC batch is one; the "
                + "`SELECT ... FOR UPDATE` that MariaDB's claim reads first is not counted), from the end of the "
                + "warm-up to the end of the burst: a claim that takes the tasks of many queues in one statement "
                + "counts once. The same burst in one queue on one instance JVM gives the ratio; the dispatch "
                + "scenario's figure (one queue, adder and consumer in the benchmark's JVM) is shown beside it when "
                + "both ran.", this.size.instances().queueBurstTasks(), Size.PRODUCERS, this.size.warmUpTasks());
    }

    private String row(String what) {
        return String.format("many-queues: %,d due at once, %s: tasks/s (tasks per claim)",
                this.size.instances().queueBurstTasks(), what);
    }

    private static String ratioRow() {
        return "many-queues: 64 queues against 1 queue, 1 instance JVM (against the dispatch scenario)";
    }

    @Override
    public void rows(Report report) {
        report.row(row("1 queue, 1 instance JVM"));
        report.row(row("64 queues, 1 instance JVM"));
        report.row(row("64 queues, 4 instance JVMs"));
        report.row(ratioRow());
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        if (!(system instanceof DelayTaskSystem delayTask)) {
            for (String row : new String[] { row("1 queue, 1 instance JVM"), row("64 queues, 1 instance JVM"),
                    row("64 queues, 4 instance JVMs"), ratioRow() }) {
                report.put(row, system.name(), "n/a");
            }
            return;
        }
        Result one = burst(delayTask, 1, InstanceJvms.Listeners.KINDS, TaskKind.TASK);
        report.put(row("1 queue, 1 instance JVM"), system.name(), one.cell());
        Result spread = burst(delayTask, 1, InstanceJvms.Listeners.QUEUES, TaskKind.QUEUES);
        report.put(row("64 queues, 1 instance JVM"), system.name(), spread.cell());
        Result four = burst(delayTask, 4, InstanceJvms.Listeners.QUEUES, TaskKind.QUEUES);
        report.put(row("64 queues, 4 instance JVMs"), system.name(), four.cell());
        OptionalDouble dispatch = report.kept(DispatchScenario.RATE, system.name());
        String ratio = String.format("%.2fx", spread.rate() / one.rate());
        if (dispatch.isPresent()) {
            ratio += String.format(" (%.2fx of dispatch's %s)", spread.rate() / dispatch.getAsDouble(),
                    Format.rate(dispatch.getAsDouble()));
        }
        report.put(ratioRow(), system.name(), ratio);
        for (Result result : new Result[] { one, spread, four }) {
            if (result.problem() != null) {
                report.note(system.name() + ", many-queues, " + result.label() + ": " + result.problem());
            }
        }
    }

    private Result burst(DelayTaskSystem system, int jvms, InstanceJvms.Listeners listeners, TaskKind kind)
            throws Exception {
        int tasks = this.size.instances().queueBurstTasks();
        String label = ((kind == TaskKind.QUEUES) ? "64 queues, " : "1 queue, ") + jvms + " JVM(s)";
        System.out.printf("many-queues: %s: %s ...%n", system.name(), label);
        try (DelayTaskSystem.Workspace workspace = system.workspace("mq" + jvms + kind.name().toLowerCase(Locale.ROOT));
                Instance adder = workspace.startAdding();
                InstanceJvms runners = InstanceJvms.start(jvms, listeners, workspace.properties(),
                        system.runName())) {
            InstanceJvmRuns.warmUp(adder, runners, kind, this.size);
            double fillRate = Burst.fillRate(adder, Math.max(1000, tasks / 10));
            // more room than in dispatch: idle instance JVMs take CPU from the adding one
            long due = System.currentTimeMillis() + (long) (tasks / fillRate * 2000) + 3000;
            Producers.batches(adder, tasks, Size.PRODUCERS, (i) -> new BenchTask(kind, due));
            long overrun = System.currentTimeMillis() - due;
            Duration timeout = Duration.ofMillis(Math.max(0, -overrun)).plusSeconds(60).plusMillis(tasks * 5L);
            boolean complete = runners.awaitHandled(tasks, timeout);
            long finished = complete
                    ? InstanceJvmRuns.awaitFinishedMicros(adder, kind, due, Duration.ofSeconds(30)) : -1;
            InstanceFigures figures = runners.figures();
            long end = (finished > 0) ? finished : figures.lastMicros();
            double rate = figures.handled() * 1e6 / Math.max(1, end - figures.firstMicros());
            return new Result(label, figures, rate, complete, finished > 0, overrun);
        }
    }

    /**
     * @param fillOverrunMillis when positive, the last tasks were added this long after they were due
     */
    private record Result(String label, InstanceFigures figures, double rate, boolean complete, boolean acknowledged,
            long fillOverrunMillis) {

        String cell() {
            String cell = String.format("%s (%.1f)", Format.rate(this.rate), this.figures.tasksPerClaim());
            if (!this.complete) {
                return cell + " (only " + Format.count(this.figures.handled()) + " ran)";
            }
            return this.acknowledged ? cell : cell + " (acks not seen)";
        }

        String problem() {
            if (this.figures.claims() == 0 && this.figures.handled() > 0) {
                return "no claim statement was recognised (has the claim's SQL changed? see StatementCounter)";
            }
            return (this.fillOverrunMillis > 0)
                    ? "the last tasks were added " + this.fillOverrunMillis + " ms after they were due" : null;
        }

    }

}
