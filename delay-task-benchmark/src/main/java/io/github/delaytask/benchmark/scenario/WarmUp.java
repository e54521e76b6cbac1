package io.github.delaytask.benchmark.scenario;

import java.time.Duration;

import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.TaskKind;

/**
 * Starts an instance and runs some tasks through it (single and batched adds, due at once), so that the measured
 * part does not pay for class loading, JIT compilation and connection pools; then empties its storage. The
 * statements the warm-up sends are recorded, for EXPLAIN.
 */
final class WarmUp {

    private WarmUp() {
    }

    static Instance start(QueueSystem system, HandledTasks handled, Size size) throws Exception {
        Instance instance = system.start(handled);
        try {
            instance.recordStatements(true);
            long due = System.currentTimeMillis();
            int singles = size.warmUpTasks() / 2;
            Producers.singles(instance, singles, Size.PRODUCERS, (i) -> new BenchTask(TaskKind.TASK, due));
            Producers.batches(instance, size.warmUpTasks() - singles, Size.PRODUCERS,
                    (i) -> new BenchTask(TaskKind.TASK, due));
            if (!handled.await(TaskKind.TASK, size.warmUpTasks(), Duration.ofSeconds(60))) {
                throw new IllegalStateException("Warm-up: only " + handled.count(TaskKind.TASK) + " of "
                        + size.warmUpTasks() + " tasks ran within 60 s");
            }
            if (awaitFinished(instance, TaskKind.TASK, due, Duration.ofSeconds(30)) < 0) {
                throw new IllegalStateException("Warm-up: tasks ran but were not all marked finished within 30 s");
            }
            instance.recordStatements(false);
            instance.clear();
            handled.reset();
            return instance;
        }
        catch (Exception | Error ex) {
            instance.close();
            throw ex;
        }
    }

    /**
     * Wait until the system stored the completion of every task of a kind due up to a time, polling every 2 ms.
     * @return {@link System#nanoTime()} when it first showed none unfinished, or -1 on time-out
     */
    static long awaitFinished(Instance instance, TaskKind kind, long dueUpToMillis, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (instance.anyUnfinished(kind, dueUpToMillis)) {
            if (System.nanoTime() > deadline) {
                return -1;
            }
            Thread.sleep(2);
        }
        return System.nanoTime();
    }

}
