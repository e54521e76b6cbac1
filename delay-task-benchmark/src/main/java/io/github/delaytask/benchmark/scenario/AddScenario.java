package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.util.function.IntFunction;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.TaskKind;

/**
 * Adds per second from {@link Size#ADD_THREADS} threads: one task per call, then batches of {@link Size#BATCH_SIZE},
 * each from an empty table. The tasks are due in 3 to 4 minutes: inside delay-task's preload window, so each add
 * writes Redis as well as the database, and not due before the scenario ends.
 */
public final class AddScenario implements Scenario {

    private final Size size;

    public AddScenario(Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "add";
    }

    @Override
    public String definition() {
        return String.format("**add**: tasks a second from %d threads calling the system's add in a loop, from the "
                + "first call to the last return, each measurement on empty storage. Tasks are due in 3 to 4 minutes "
                + "(inside delay-task's preload window, so its adds write Redis too). Batches: delay-task "
                + "`DelayTaskService.addTasks`, db-scheduler `scheduleBatch`, Redisson %d `offerAsync` calls sent "
                + "together and then awaited.", Size.ADD_THREADS, Size.BATCH_SIZE);
    }

    private String singleRow() {
        return String.format("add: %,d single adds, %d threads", this.size.addSingles(), Size.ADD_THREADS);
    }

    private String batchRow() {
        return String.format("add: %,d in batches of %d, %d threads", this.size.addBatched(), Size.BATCH_SIZE,
                Size.ADD_THREADS);
    }

    @Override
    public void rows(Report report) {
        report.row(singleRow());
        report.row(batchRow());
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        HandledTasks handled = new HandledTasks();
        try (Instance instance = WarmUp.start(system, handled, this.size)) {
            long base = System.currentTimeMillis() + Duration.ofMinutes(3).toMillis();
            IntFunction<BenchTask> task = (i) -> new BenchTask(TaskKind.TASK, base + i % 60_000);
            Duration singles = Producers.singles(instance, this.size.addSingles(), Size.ADD_THREADS, task);
            report.put(singleRow(), system.name(), Format.rate(Producers.perSecond(this.size.addSingles(), singles)));
            instance.clear();
            Duration batches = Producers.batches(instance, this.size.addBatched(), Size.ADD_THREADS, task);
            report.put(batchRow(), system.name(), Format.rate(Producers.perSecond(this.size.addBatched(), batches)));
        }
    }

}
