package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.time.Instant;

import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.Instance;
import io.github.delaytask.benchmark.system.InstanceJvms;
import io.github.delaytask.benchmark.system.TaskKind;

/**
 * What the scenarios of instance JVMs share: the warm-up, through an instance of this JVM that adds and the JVMs that
 * run, and the wall clock that their figures use.
 */
final class InstanceJvmRuns {

    /** How far ahead of its first task the steady warm-up adds its tasks: adding 50,000 takes about a second. */
    private static final long STEADY_WARM_UP_LEAD_MILLIS = 5000;

    private InstanceJvmRuns() {
    }

    /**
     * Add {@link Size#warmUpTasks()} tasks for each JVM, due at once (singly and in batches, as {@link WarmUp} does),
     * wait until they ran and their completion is stored, then empty the storage and reset the JVMs' figures.
     */
    static void warmUp(Instance adder, InstanceJvms jvms, TaskKind kind, Size size) throws Exception {
        int tasks = size.warmUpTasks() * jvms.size();
        long due = System.currentTimeMillis();
        int singles = tasks / 2;
        Producers.singles(adder, singles, Size.PRODUCERS, (i) -> new BenchTask(kind, due));
        Producers.batches(adder, tasks - singles, Size.PRODUCERS, (i) -> new BenchTask(kind, due));
        awaitAndClear(adder, jvms, kind, tasks, due, Duration.ofSeconds(120));
    }

    /**
     * After {@link #warmUp}, a stream of tasks due evenly at the given rate for the given time, run the same way:
     * a burst due at once leaves the code of a steady stream (small contended rounds, small acknowledgement batches)
     * to be compiled during the measured phase, and on this 2-core host the four JVMs' compilers made its first
     * seconds hundreds of ms late.
     */
    static void warmUpSteady(Instance adder, InstanceJvms jvms, TaskKind kind, int rate, Duration duration)
            throws Exception {
        int tasks = (int) (rate * duration.toSeconds());
        long first = System.currentTimeMillis() + STEADY_WARM_UP_LEAD_MILLIS;
        Producers.batches(adder, tasks, Size.PRODUCERS, (i) -> new BenchTask(kind, first + i * 1000L / rate));
        awaitAndClear(adder, jvms, kind, tasks, first + (tasks - 1) * 1000L / rate,
                duration.plusMillis(STEADY_WARM_UP_LEAD_MILLIS).plusSeconds(120));
    }

    /**
     * Wait until the JVMs ran the warm-up's tasks and their completion is stored, then empty the storage and reset
     * the JVMs' figures.
     */
    private static void awaitAndClear(Instance adder, InstanceJvms jvms, TaskKind kind, int tasks, long lastDue,
            Duration timeout) throws Exception {
        if (!jvms.awaitHandled(tasks, timeout)) {
            throw new IllegalStateException("Warm-up: only " + jvms.handled() + " of " + tasks + " tasks ran within "
                    + timeout.toSeconds() + " s");
        }
        if (WarmUp.awaitFinished(adder, kind, lastDue, Duration.ofSeconds(30)) < 0) {
            throw new IllegalStateException("Warm-up: tasks ran but were not all marked finished within 30 s");
        }
        adder.clear();
        jvms.reset();
    }

    /** Wall clock, in epoch microseconds, as the instance JVMs time their handler calls. */
    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    /**
     * Wait until the storage shows no task of a kind due up to a time unfinished, polling every 2 ms.
     * @return {@link #nowMicros()} then, or -1 on time-out
     */
    static long awaitFinishedMicros(Instance adder, TaskKind kind, long dueUpToMillis, Duration timeout)
            throws InterruptedException {
        return (WarmUp.awaitFinished(adder, kind, dueUpToMillis, timeout) > 0) ? nowMicros() : -1;
    }

}
