package io.github.delaytask.benchmark.scenario;

import java.time.Duration;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.TaskKind;
import org.HdrHistogram.Histogram;

/**
 * Tasks falling due at a steady {@link Size#LATENESS_RATE} a second. They are all added first (in batches, by
 * {@link Size#PRODUCERS} threads, while the consumers run), so that the figure is the system's firing and not how
 * fast it takes adds, which the add scenario measures. Lateness is the handler's start (wall clock, microseconds)
 * minus the task's execute time as the system hands it to the handler.
 */
public final class LatenessScenario implements Scenario {

    private final Size size;

    public LatenessScenario(Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "lateness";
    }

    @Override
    public String definition() {
        return String.format("**lateness**: %,d tasks due at %,d a second, all added ahead in batches by %d "
                + "threads while the consumers run; lateness is the handler's start (wall clock, microseconds) "
                + "minus the task's execute time as the system hands it to the handler (HdrHistogram).",
                Size.LATENESS_RATE * this.size.latenessDuration().toSeconds(), Size.LATENESS_RATE, Size.PRODUCERS);
    }

    private String row() {
        return String.format("lateness at %,d/s for %d s: p50 / p99 / max (ms)", Size.LATENESS_RATE,
                this.size.latenessDuration().toSeconds());
    }

    @Override
    public void rows(Report report) {
        report.row(row());
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        HandledTasks handled = new HandledTasks();
        int tasks = (int) (Size.LATENESS_RATE * this.size.latenessDuration().toSeconds());
        try (Instance instance = WarmUp.start(system, handled, this.size)) {
            double fillRate = Burst.fillRate(instance, Math.max(1000, tasks / 10));
            long leadMillis = (long) (tasks / fillRate * 1500) + 2000;
            long first = System.currentTimeMillis() + leadMillis;
            handled.recordLateness();
            Producers.batches(instance, tasks, Size.PRODUCERS,
                    (i) -> new BenchTask(TaskKind.TASK, first + i * 1000L / Size.LATENESS_RATE));
            long overrun = System.currentTimeMillis() - first;
            Duration timeout = Duration.ofMillis(Math.max(0, -overrun))
                .plus(this.size.latenessDuration())
                .plusSeconds(30);
            boolean complete = handled.await(TaskKind.TASK, tasks, timeout);
            Histogram lateness = handled.lateness();
            String cell = Format.lateness(lateness);
            report.put(row(), system.name(), complete ? cell
                    : cell + " (" + Format.count(tasks - handled.count(TaskKind.TASK)) + " never ran)");
            if (overrun > 0) {
                report.note(system.name() + ", lateness: the last tasks were added " + overrun
                        + " ms after the first was due");
            }
            if (handled.early() > 0) {
                report.note(system.name() + ", lateness: " + handled.early() + " tasks ran more than 1 ms early");
            }
        }
    }

}
