package io.github.delaytask.scale;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The figures of a scale run as lines of text, printed with the prefix {@code scale:}: the outcome, the spread of
 * the work over the workers and over the Redis masters, who ran the jobs, and what the database waited for.
 */
final class ScaleReport {

    private static final long TIMELINE_SLICE_MILLIS = 5000;

    private final List<String> lines = new ArrayList<>();

    private final RunFigures figures;

    private final ScaleRedisCluster cluster;

    private final String keyPrefix;

    private final List<String> workerIds;

    ScaleReport(RunFigures figures, ScaleRedisCluster cluster, String keyPrefix, List<String> workerIds) {
        this.figures = figures;
        this.cluster = cluster;
        this.keyPrefix = keyPrefix;
        this.workerIds = workerIds;
    }

    void add(String format, Object... args) {
        this.lines.add(String.format(format, args));
    }

    void print() {
        this.lines.forEach((line) -> System.out.println("scale: " + line));
    }

    /** Whether the tasks ran once each, and how fast and how late they ran. */
    void outcome(long tasks, long addedFrom, long addedTo, long executedAt) {
        long[] runs = this.figures.firstAndLastRun();
        long[] lateness = this.figures.lateness();
        add("outcome: %,d executed, %,d handler runs, %,d lost, %,d run more than once", this.figures.executed(),
                this.figures.runs(), this.figures.lost(), this.figures.duplicated());
        add("adds: %s (%,d/s)", seconds(addedTo - addedFrom), tasks * 1000 / Math.max(1, addedTo - addedFrom));
        add("runs: first %s, last %s after the first add; %,d/s from the first handler start to the last; all "
                + "executed %s after the first add", seconds(runs[0] - addedFrom), seconds(runs[1] - addedFrom),
                tasks * 1000 / Math.max(1, runs[1] - runs[0]), seconds(executedAt - addedFrom));
        add("lateness (handler start minus execute time): median %,d ms, p99 %,d ms, most %,d ms", lateness[0],
                lateness[1], lateness[2]);
    }

    /** Runs and CPU per worker, runs per pair, and runs per worker over time. */
    void work(long tasks, Counters before, Counters after, long addedFrom) {
        this.figures.runsPerWorker().forEach((worker, runs) -> {
            Duration cpu = after.workerCpu().getOrDefault(worker, Duration.ZERO)
                .minus(before.workerCpu().getOrDefault(worker, Duration.ZERO));
            add("%s: %,d runs (%.1f%%), %s CPU during the run", worker, runs, 100.0 * runs / tasks,
                    seconds(cpu.toMillis()));
        });
        List<RunFigures.PairRuns> pairs = this.figures.pairs();
        add("pairs: %d with runs; runs per pair from %,d to %,d; workers per pair from %d to %d", pairs.size(),
                pairs.stream().mapToLong(RunFigures.PairRuns::runs).min().orElse(0),
                pairs.stream().mapToLong(RunFigures.PairRuns::runs).max().orElse(0),
                pairs.stream().mapToInt(RunFigures.PairRuns::workers).min().orElse(0),
                pairs.stream().mapToInt(RunFigures.PairRuns::workers).max().orElse(0));
        this.figures.timeline(addedFrom, TIMELINE_SLICE_MILLIS).forEach((slice, runs) -> {
            long total = runs.values().stream().mapToLong(Long::longValue).sum();
            add("runs from %3d s to %3d s: %,7d = %s", slice * TIMELINE_SLICE_MILLIS / 1000,
                    (slice + 1) * TIMELINE_SLICE_MILLIS / 1000, total, this.workerIds.stream()
                        .map((worker) -> String.format("%,6d", runs.getOrDefault(worker, 0L)))
                        .collect(Collectors.joining(" + ")));
        });
    }

    /**
     * Claims per worker (a claim over all the queues due at once: a pipeline of scripts and one database
     * statement), how many tasks each handed out, and waits for a database connection.
     */
    void claims(long tasks, Counters before, Counters after) {
        long handedOut = 0;
        for (String worker : this.workerIds) {
            RunFigures.WorkerFigures start = before.workerFigures(worker);
            RunFigures.WorkerFigures end = after.workerFigures(worker);
            long claimsWithTasks = end.claimsWithTasks() - start.claimsWithTasks();
            long claimed = end.claimedTasks() - start.claimedTasks();
            handedOut += claimed;
            add("claims, %s: %,d claims, %,d of them handed out tasks, %.1f tasks each; threads waiting for "
                    + "a database connection: %.1f on average, %d at most (since start)", worker,
                    end.claims() - start.claims(), claimsWithTasks, (double) claimed / Math.max(1, claimsWithTasks),
                    (double) (end.poolWaiting() - start.poolWaiting())
                            / Math.max(1, end.poolSamples() - start.poolSamples()),
                    end.poolMostWaiting());
        }
        add("claims: Redis handed out %,d task ids for %,d tasks; the database turned down the %,d others (ids of "
                + "finished tasks, and ids twice in a queue)", handedOut, tasks, handedOut - tasks);
    }

    /**
     * Commands the idle instances (the workers, with a listener for every queue, and the producer) sent to the
     * masters in a window after the run: their looks at idle queues and their jobs, those of scripts included; the
     * report's own {@code INFO} calls and the replicas' {@code REPLCONF} are left out.
     */
    void idle(Counters before, Counters after, Duration window, int listeners) {
        Map<String, Long> calls = new TreeMap<>();
        for (int port : this.cluster.masterPorts()) {
            after.callsSince(before, port).forEach((command, count) -> calls.merge(command, count, Long::sum));
        }
        // replconf is the replicas' traffic, not the instances'
        calls.keySet().removeAll(List.of("info", "cluster", "replconf"));
        long total = calls.values().stream().mapToLong(Long::longValue).sum();
        double seconds = window.toMillis() / 1000.0;
        add("idle: with nothing left to run, the %d workers (%d listeners each) and the producer sent %.1f Redis "
                + "commands a second in all, %.1f per worker, those of scripts and jobs included, over %.0f s: %s",
                this.workerIds.size(), listeners, total / seconds, total / seconds / this.workerIds.size(), seconds,
                calls);
    }

    /** Queues and commands per master. */
    void redis(Counters before, Counters after) {
        Map<Integer, Integer> queues = new TreeMap<>();
        for (int type = 0; type < PairListeners.TYPES; type++) {
            for (int priority = 0; priority < PairListeners.PRIORITIES; priority++) {
                queues.merge(masterOf("{" + type + ":" + priority + "}:future"), 1, Integer::sum);
            }
        }
        Map<String, Integer> singleKeys = new LinkedHashMap<>();
        for (String key : List.of("lock:reload", "lock:refresh", "queues")) {
            singleKeys.put(key, masterOf(key));
        }
        add("redis: masters of the single keys: %s", singleKeys);
        for (int port : after.redisCalls().keySet()) {
            Map<String, Long> calls = after.callsSince(before, port);
            String most = calls.entrySet()
                .stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(8)
                .map((entry) -> String.format("%s %,d", entry.getKey(), entry.getValue()))
                .collect(Collectors.joining(", "));
            add("redis master %d: %d of the %d queues; %,d commands (those of scripts included), %.1f s CPU during "
                    + "the run; %s", port, queues.getOrDefault(port, 0), PairListeners.TYPES * PairListeners.PRIORITIES,
                    calls.values().stream().mapToLong(Long::longValue).sum(),
                    after.redisCpu().get(port) - before.redisCpu().getOrDefault(port, 0.0), most);
        }
    }

    /** Who tried and took the jobs' locks, and for how long. */
    void locks(long from, long to, Duration reloadInterval) {
        for (RunFigures.LockTries tries : this.figures.lockTries(from, to)) {
            add("lock %s, %s: %,d tries, %,d taken, held %,d ms in all (longest %,d ms), slowest try %,d µs",
                    tries.name(), tries.worker(), tries.tries(), tries.taken(), tries.heldMillis(),
                    tries.longestHeldMillis(), tries.slowestTryMicros());
        }
        List<RunFigures.HeldLock> refreshes = this.figures.heldLocks("refresh", from, to);
        long changes = 0;
        for (int i = 1; i < refreshes.size(); i++) {
            if (!refreshes.get(i).worker().equals(refreshes.get(i - 1).worker())) {
                changes++;
            }
        }
        add("refresh: %,d runs in %s, the holder changed %,d times", refreshes.size(), seconds(to - from), changes);
        add("reload runs (every %d s) since the workers started, at times from the first add: %s",
                reloadInterval.toSeconds(), this.figures.heldLocks("full-reload", 0, to)
                    .stream()
                    .map((run) -> String.format("%s at %s for %,d ms", run.worker(), seconds(run.takenAt() - from),
                            run.heldMillis()))
                    .collect(Collectors.joining("; ")));
        add("locks tried since the workers started: %s. A try never waits (SET NX; the job is skipped while "
                + "another instance holds the lock); claims and acknowledgements take no lock: they are Lua scripts "
                + "on the queue's own keys and version-checked updates of the task's rows", this.figures.lockNames());
    }

    /** Commits, and what the workers' busy connections waited for. */
    void database(Counters before, Counters after, DatabaseWaits waits, long from, long to) {
        long commits = after.commits() - before.commits();
        add("database: %,d commits during the run (%,d/s; other users of the database count too)", commits,
                commits * 1000 / Math.max(1, to - from));
        add("database: %,d samples of pg_stat_activity; the workers' busy connections by wait, summed over the "
                + "samples: %s", waits.samples(), waits.waits());
        add("database: %,d samples with a worker statement waiting on a lock (at most %,d at once)",
                waits.samplesWithLockWaits(), waits.mostLockWaits());
    }

    private int masterOf(String key) {
        return this.cluster.masterPortOf(this.keyPrefix + ":" + key);
    }

    static String seconds(long millis) {
        return String.format("%.1f s", millis / 1000.0);
    }

}
