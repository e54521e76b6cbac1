package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.util.function.LongConsumer;

import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.TaskKind;

/**
 * A burst: tasks all due at one instant, added ahead of it while the consumers run, as an application's would.
 * <p>
 * The rate is the tasks divided by the time from the first handler call to the last acknowledgement: the moment
 * the system's storage first shows none of them unfinished (for delay-task: no {@code taskinfo} row left, each
 * log {@code EXECUTED}; for db-scheduler: no {@code scheduled_tasks} row left), polled every 2 ms after the last
 * handler call. Redisson takes a task off Redis before its handler runs, so there the last handler call ends it.
 */
final class Burst {

    private Burst() {
    }

    /**
     * How fast the instance takes tasks in batches from {@link Size#PRODUCERS} threads, measured with tasks due in
     * 4 minutes; the instance is emptied afterwards.
     * @return tasks a second
     */
    static double fillRate(Instance instance, int count) throws Exception {
        long due = System.currentTimeMillis() + Duration.ofMinutes(4).toMillis();
        Duration elapsed = Producers.batches(instance, count, Size.PRODUCERS, (i) -> new BenchTask(TaskKind.TASK, due));
        instance.clear();
        return Producers.perSecond(count, elapsed);
    }

    /**
     * Add the tasks, due 1.5 times the expected fill time plus a margin ahead, then measure their dispatch.
     * @param fillRate the rate the instance takes batches at, for the lead time
     * @param margin time to add to the lead: at least 2 s, more for what {@code beforeDue} does
     * @param beforeDue what to do once the tasks are in, before they are due (EXPLAIN, statistics); it is given
     * their due time, in epoch milliseconds
     */
    static Result run(Instance instance, HandledTasks handled, int count, double fillRate, Duration margin,
            LongConsumer beforeDue) throws Exception {
        long leadMillis = (long) (count / fillRate * 1500) + margin.toMillis();
        long dueNanos = System.nanoTime() + leadMillis * 1_000_000;
        long due = System.currentTimeMillis() + leadMillis;
        Producers.batches(instance, count, Size.PRODUCERS, (i) -> new BenchTask(TaskKind.TASK, due));
        long overrun = System.currentTimeMillis() - due;
        beforeDue.accept(due);
        // room for as little as 200 tasks a second
        Duration timeout = Duration.ofMillis(Math.max(0, -overrun)).plusSeconds(60).plusMillis(count * 5L);
        boolean complete = handled.await(TaskKind.TASK, count, timeout);
        long first = handled.first(TaskKind.TASK);
        long last = handled.last(TaskKind.TASK);
        long finished = complete ? WarmUp.awaitFinished(instance, TaskKind.TASK, due, Duration.ofSeconds(30)) : -1;
        long handledCount = handled.count(TaskKind.TASK);
        long end = (finished > 0) ? finished : last;
        return new Result(count, handledCount, handledCount * 1e9 / Math.max(1, end - first),
                (first - dueNanos) / 1e6, (finished > 0) ? (finished - last) / 1e6 : -1, overrun, complete,
                finished > 0);
    }

    /**
     * @param tasks tasks in the burst
     * @param handled how many handlers ran
     * @param rate tasks a second from the first handler call to the last acknowledgement
     * @param firstAfterDueMillis the first handler call minus the due time
     * @param ackAfterLastHandlerMillis the last acknowledgement seen minus the last handler call
     * @param fillOverrunMillis when positive, the last tasks were added this long after they were due
     * @param complete whether every handler ran in time
     * @param acknowledged whether every completion was seen stored
     */
    record Result(int tasks, long handled, double rate, double firstAfterDueMillis, double ackAfterLastHandlerMillis,
            long fillOverrunMillis, boolean complete, boolean acknowledged) {

        String cell() {
            String rate = Format.rate(this.rate);
            if (!this.complete) {
                return rate + " (only " + Format.count(this.handled) + " ran)";
            }
            return this.acknowledged ? rate : rate + " (acks not seen)";
        }

        /** Anything that makes the figure less than clean, or null. */
        String problem() {
            if (this.fillOverrunMillis > 0) {
                return "the last tasks were added " + this.fillOverrunMillis + " ms after they were due";
            }
            return null;
        }

    }

}
