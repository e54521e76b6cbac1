package io.github.delaytask.scale;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import io.github.delaytask.testsupport.WorkerProcess;

/**
 * What the servers and the workers had counted at one moment; the report shows the difference between two.
 * @param redisCalls calls per command ({@code evalsha}, and commands run by scripts) by master port
 * @param redisCpu CPU seconds used by master port
 * @param workerCpu CPU time used by worker
 * @param workerFigures the figures each worker last wrote, by worker
 * @param commits transactions committed in the database (by anyone)
 */
record Counters(Map<Integer, Map<String, Long>> redisCalls, Map<Integer, Double> redisCpu,
        Map<String, Duration> workerCpu, Map<String, RunFigures.WorkerFigures> workerFigures, long commits) {

    static Counters read(ScaleRedisCluster cluster, Map<String, WorkerProcess> workers, RunFigures figures) {
        Map<Integer, Map<String, Long>> calls = new TreeMap<>();
        Map<Integer, Double> redisCpu = new TreeMap<>();
        for (int port : cluster.masterPorts()) {
            calls.put(port, cluster.commandCalls(port));
            redisCpu.put(port, cluster.cpuSeconds(port));
        }
        Map<String, Duration> workerCpu = new TreeMap<>();
        workers.forEach((id, worker) -> workerCpu.put(id, ProcessHandle.of(worker.pid())
            .flatMap((process) -> process.info().totalCpuDuration())
            .orElse(Duration.ZERO)));
        return new Counters(calls, redisCpu, workerCpu, figures.workerFigures(), figures.databaseCommits());
    }

    /** Calls of a command on a master since {@code before}. */
    long callsSince(Counters before, int port, String command) {
        return this.redisCalls.get(port).getOrDefault(command, 0L)
                - before.redisCalls.getOrDefault(port, Map.of()).getOrDefault(command, 0L);
    }

    /** Commands called on a master since {@code before}, leaving out those not called. */
    Map<String, Long> callsSince(Counters before, int port) {
        Map<String, Long> calls = new TreeMap<>();
        this.redisCalls.get(port).keySet().forEach((command) -> {
            long count = callsSince(before, port, command);
            if (count > 0) {
                calls.put(command, count);
            }
        });
        return calls;
    }

    RunFigures.WorkerFigures workerFigures(String worker) {
        return this.workerFigures.getOrDefault(worker, RunFigures.WorkerFigures.NONE);
    }

}
