package io.github.delaytask.benchmark.scenario;

import java.time.Duration;

/**
 * How many tasks each scenario uses.
 * @param name {@code small} or {@code full}
 * @param warmUpTasks tasks added and run on every new instance before it is measured
 * @param addSingles tasks of the single-add measurement
 * @param addBatched tasks of the batched-add measurement
 * @param dispatchTasks tasks due at the same instant in the dispatch scenario
 * @param latenessDuration how long the lateness scenario adds tasks, at {@link #LATENESS_RATE} a second
 * @param backlogTasks pending tasks of the backlog scenario
 * @param backlogAdds single adds measured on top of the backlog
 * @param backlogBurst tasks due at the same instant on top of the backlog
 * @param startupRuns start-ups of each variant in the start-up scenario
 * @param instances the sizes of the scenarios of several queues and instances
 */
public record Size(String name, int warmUpTasks, int addSingles, int addBatched, int dispatchTasks,
        Duration latenessDuration, int backlogTasks, int backlogAdds, int backlogBurst, int startupRuns,
        Instances instances) {

    /** Threads that add tasks in the add scenarios. */
    public static final int ADD_THREADS = 8;

    /** Threads that add tasks everywhere else, as in the measurements. */
    public static final int PRODUCERS = 4;

    /** Tasks per batch of a batched add. */
    public static final int BATCH_SIZE = 100;

    /** Tasks a second in the lateness scenario. */
    public static final int LATENESS_RATE = 1000;

    /** Sizes of issues #6 and #14. */
    public static final Size FULL = new Size("full", 20_000, 50_000, 200_000, 100_000, Duration.ofSeconds(30),
            1_000_000, 10_000, 10_000, 5, new Instances(100_000, Duration.ofSeconds(30), Duration.ofSeconds(30),
                    Duration.ofSeconds(60), 5_000, Duration.ofSeconds(60)));

    /** A tenth or so, to try the benchmark out. */
    public static final Size SMALL = new Size("small", 1_000, 5_000, 20_000, 10_000, Duration.ofSeconds(10),
            100_000, 2_000, 2_000, 3, new Instances(10_000, Duration.ofSeconds(10), Duration.ofSeconds(10),
                    Duration.ofSeconds(15), 1_000, Duration.ofSeconds(15)));

    public static Size named(String name) {
        return switch (name) {
            case "full" -> FULL;
            case "small" -> SMALL;
            default -> throw new IllegalArgumentException("--size must be small or full, not " + name);
        };
    }

    public Size withWarmUpTasks(int tasks) {
        return new Size(this.name, tasks, this.addSingles, this.addBatched, this.dispatchTasks, this.latenessDuration,
                this.backlogTasks, this.backlogAdds, this.backlogBurst, this.startupRuns, this.instances);
    }

    public Size withDispatchTasks(int tasks) {
        return new Size(this.name, this.warmUpTasks, this.addSingles, this.addBatched, tasks, this.latenessDuration,
                this.backlogTasks, this.backlogAdds, this.backlogBurst, this.startupRuns, this.instances);
    }

    public Size withBacklogTasks(int tasks) {
        return new Size(this.name, this.warmUpTasks, this.addSingles, this.addBatched, this.dispatchTasks,
                this.latenessDuration, tasks, this.backlogAdds, this.backlogBurst, this.startupRuns, this.instances);
    }

    public Size withLatenessDuration(Duration duration) {
        return new Size(this.name, this.warmUpTasks, this.addSingles, this.addBatched, this.dispatchTasks, duration,
                this.backlogTasks, this.backlogAdds, this.backlogBurst, this.startupRuns, this.instances);
    }

    /**
     * The sizes of the scenarios of issue #14.
     * @param queueBurstTasks tasks due at once over 64 queues in the many-queues scenario
     * @param idleDuration how long the idle-cost scenario counts Redis commands
     * @param denseDuration how long the cross-instance scenario adds 200 tasks a second
     * @param sparseDuration how long it then adds one every 300 to 700 ms
     * @param steadyRate tasks due a second in the steady-load scenario
     * @param steadyDuration how long they fall due
     */
    public record Instances(int queueBurstTasks, Duration idleDuration, Duration denseDuration,
            Duration sparseDuration, int steadyRate, Duration steadyDuration) {
    }

}
