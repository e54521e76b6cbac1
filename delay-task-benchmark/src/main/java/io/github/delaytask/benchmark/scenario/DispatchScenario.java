package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.TableStatistics;

/**
 * A burst of tasks all due at the same instant, with handlers that do nothing (see {@link Burst} for what is
 * measured). Once the tasks are in, before they are due, the statements the warm-up sent are EXPLAINed with the
 * table that full, and the database's table statistics are read again after the burst: a plan chosen while the
 * table was empty shows there as sequential scans.
 */
public final class DispatchScenario implements Scenario {

    /** The rate of a burst that ran to the end, kept in the report for the many-queues scenario. */
    static final String RATE = "dispatch rate";

    /** An idle PostgreSQL connection publishes its table counters within 10 s. */
    private static final Duration STATISTICS_DELAY = Duration.ofSeconds(11);

    private final Size size;

    public DispatchScenario(Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "dispatch";
    }

    @Override
    public String definition() {
        return String.format("**dispatch**: %,d tasks all due at one instant, added in batches by %d threads ahead "
                + "of it (1.5 times the expected fill time plus 2 s, or plus 13 s on PostgreSQL, whose table "
                + "counters are read just before the tasks are due) while the consumers run; handlers do nothing. "
                + "Tasks a second from the first handler call to the last acknowledgement: the first moment, polled "
                + "every 2 ms after the last handler call, when the system's storage holds none of them unfinished "
                + "(delay-task: no `taskinfo` row left, as a task leaves it in the transaction that marks its log "
                + "EXECUTED; db-scheduler: no `scheduled_tasks` row left). Redisson removes a task from Redis when "
                + "a consumer takes it, before its handler runs, so there the last handler call ends it. The plans "
                + "below are EXPLAINs of the statements the warm-up sent, run once the tasks are in the table.",
                this.size.dispatchTasks(), Size.PRODUCERS);
    }

    private String rateRow() {
        return String.format("dispatch: %,d due at once, first handler call to last ack", this.size.dispatchTasks());
    }

    private String firstRow() {
        return "dispatch: first handler call after the due time (ms)";
    }

    @Override
    public void rows(Report report) {
        report.row(rateRow());
        report.row(firstRow());
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        HandledTasks handled = new HandledTasks();
        int tasks = this.size.dispatchTasks();
        try (Instance instance = WarmUp.start(system, handled, this.size)) {
            double fillRate = Burst.fillRate(instance, Math.max(1000, tasks / 10));
            List<String> plans = new ArrayList<>();
            List<TableStatistics> before = new ArrayList<>();
            boolean statistics = !instance.tableStatistics().isEmpty();
            Burst.Result result = Burst.run(instance, handled, tasks, fillRate,
                    statistics ? STATISTICS_DELAY.plusSeconds(2) : Duration.ofSeconds(2), (due) -> {
                        plans.addAll(instance.explainRecorded());
                        if (statistics) {
                            sleepUntil(due - 200);
                            before.addAll(instance.tableStatistics());
                        }
                    });
            report.put(rateRow(), system.name(), result.cell());
            if (result.complete()) {
                report.keep(RATE, system.name(), result.rate());
            }
            report.put(firstRow(), system.name(), Format.millis(result.firstAfterDueMillis()));
            if (result.problem() != null) {
                report.note(system.name() + ", dispatch: " + result.problem());
            }
            String title = String.format("dispatch, %s: plans with %,d tasks in the table", system.name(), tasks);
            plans.forEach((plan) -> report.detail(title, plan));
            if (statistics) {
                Thread.sleep(STATISTICS_DELAY.toMillis());
                report.detail(title, statistics(before, instance.tableStatistics()));
            }
        }
    }

    private static void sleepUntil(long epochMillis) {
        try {
            Thread.sleep(Math.max(0, epochMillis - System.currentTimeMillis()));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static String statistics(List<TableStatistics> before, List<TableStatistics> after) {
        StringBuilder text = new StringBuilder("Table statistics just before the tasks were due:\n");
        before.forEach((table) -> text.append("  ").append(table).append('\n'));
        text.append("Scans during the burst (the benchmark's own count(*) of each table shows as one sequential "
                + "scan):\n");
        for (TableStatistics table : after) {
            before.stream()
                .filter((earlier) -> earlier.table().equals(table.table()))
                .findFirst()
                .ifPresent((earlier) -> text.append("  ").append(table.since(earlier)).append('\n'));
        }
        return text.toString();
    }

}
