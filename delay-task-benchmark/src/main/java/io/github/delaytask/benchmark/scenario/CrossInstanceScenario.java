package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.DelayTaskSystem;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.InstanceFigures;
import io.github.delaytask.benchmark.system.InstanceJvms;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.TaskKind;

/**
 * Lateness when one instance adds and another runs: instance A (this JVM, no listeners) adds single tasks due 20 ms
 * after the add, first densely, then sparsely; instance B (an instance JVM) runs them. delay-task only.
 */
public final class CrossInstanceScenario implements Scenario {

    private static final long DUE_AFTER_ADD_MILLIS = 20;

    private static final int DENSE_RATE = 200;

    private final Size size;

    public CrossInstanceScenario(Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "cross-instance";
    }

    @Override
    public String definition() {
        return String.format("**cross-instance** (delay-task only): instance A, in the benchmark's JVM with no "
                + "listeners, adds single tasks (`addTask`) due %d ms after the add, %d a second for %d s (dense), "
                + "then one every 300 to 700 ms (uniformly random) for %d s (sparse); instance B, an instance JVM "
                + "with its own Redis connection factory and the benchmark's two listeners, runs them; both on one "
                + "schema and key prefix, default settings, B warmed up with %,d tasks first. Lateness as in the "
                + "lateness scenario, recorded in B, for each phase apart: B has run every task of the dense phase "
                + "before the sparse one starts.", DUE_AFTER_ADD_MILLIS, DENSE_RATE,
                this.size.instances().denseDuration().toSeconds(),
                this.size.instances().sparseDuration().toSeconds(), this.size.warmUpTasks());
    }

    private String denseRow() {
        return String.format("cross-instance: due %d ms after the add, %d/s for %d s: p50 / p99 / max (ms)",
                DUE_AFTER_ADD_MILLIS, DENSE_RATE, this.size.instances().denseDuration().toSeconds());
    }

    private String sparseRow() {
        return String.format("cross-instance: due %d ms after the add, one every 300-700 ms for %d s: p50 / p99 / "
                + "max (ms)", DUE_AFTER_ADD_MILLIS, this.size.instances().sparseDuration().toSeconds());
    }

    @Override
    public void rows(Report report) {
        report.row(denseRow());
        report.row(sparseRow());
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        if (!(system instanceof DelayTaskSystem delayTask)) {
            report.put(denseRow(), system.name(), "n/a");
            report.put(sparseRow(), system.name(), "n/a");
            return;
        }
        try (DelayTaskSystem.Workspace workspace = delayTask.workspace("cross");
                Instance a = workspace.startAdding();
                InstanceJvms b = InstanceJvms.start(1, InstanceJvms.Listeners.KINDS, workspace.properties(),
                        delayTask.runName())) {
            InstanceJvmRuns.warmUp(a, b, TaskKind.TASK, this.size);
            Duration dense = this.size.instances().denseDuration();
            int denseTasks = addPaced(a, dense, () -> 1000 / DENSE_RATE);
            report.put(denseRow(), system.name(), phase(b, denseTasks));
            b.reset();
            int sparseTasks = addPaced(a, this.size.instances().sparseDuration(),
                    () -> ThreadLocalRandom.current().nextLong(300, 701));
            report.put(sparseRow(), system.name(), phase(b, sparseTasks));
        }
    }

    /**
     * Add one task at a time, each due {@link #DUE_AFTER_ADD_MILLIS} after its add, for a time.
     * @param gapMillis the time from one add to the next, from the first add's start: a slow add does not delay
     * the ones after it
     * @return how many were added
     */
    private static int addPaced(Instance instance, Duration duration, LongSupplier gapMillis)
            throws InterruptedException {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long next = start;
        int added = 0;
        while (next < end) {
            Thread.sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000));
            instance.add(new BenchTask(TaskKind.TASK, System.currentTimeMillis() + DUE_AFTER_ADD_MILLIS));
            added++;
            next += gapMillis.getAsLong() * 1_000_000;
        }
        return added;
    }

    private static String phase(InstanceJvms b, int tasks) throws InterruptedException {
        boolean complete = b.awaitHandled(tasks, Duration.ofSeconds(30));
        InstanceFigures figures = b.figures();
        String cell = Format.lateness(figures.lateness());
        return complete ? cell : cell + " (" + Format.count(tasks - figures.handled()) + " never ran)";
    }

}
