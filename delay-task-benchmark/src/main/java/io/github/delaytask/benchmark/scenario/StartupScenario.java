package io.github.delaytask.benchmark.scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.ChildProcesses;
import io.github.delaytask.benchmark.system.DelayTaskSystem;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.StartupProbe;

/**
 * Start-up of the benchmark's application (Redis, JDBC, MyBatis-Plus, one bean with two listener methods) in a
 * fresh JVM each time, with and without delay-task's auto-configurations, on the same class path. "With" includes
 * what the starter does at start: the schema script, the first reload and starting the listeners. One untimed run
 * first creates the tables, as they exist when an application restarts; then the variants alternate.
 */
public final class StartupScenario implements Scenario {

    private final Size size;

    public StartupScenario(Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "startup";
    }

    @Override
    public String definition() {
        return "**start-up**: the benchmark's delay-task application (Redis, JDBC, MyBatis-Plus, one bean with two "
                + "listener methods, web off) in a fresh JVM each time, on the same class path, without and with "
                + "delay-task's auto-configurations (`spring.autoconfigure.exclude`); the time "
                + "`SpringApplication.run` takes. With the starter it includes the schema script (the tables "
                + "exist, as when an application restarts), the first reload and starting the listeners. One "
                + "untimed start first, then the two variants alternate.";
    }

    private String row() {
        return "start-up: context start without / with the starter, median of " + this.size.startupRuns() + " (ms)";
    }

    @Override
    public void rows(Report report) {
        report.row(row());
    }

    @Override
    public void run(QueueSystem system, Report report) throws Exception {
        if (!(system instanceof DelayTaskSystem delayTask)) {
            report.put(row(), system.name(), "n/a");
            return;
        }
        try (DelayTaskSystem.Workspace workspace = delayTask.workspace("startup")) {
            probe(true, workspace.properties());
            List<long[]> without = new ArrayList<>();
            List<long[]> with = new ArrayList<>();
            for (int i = 0; i < this.size.startupRuns(); i++) {
                without.add(probe(false, workspace.properties()));
                with.add(probe(true, workspace.properties()));
            }
            long contextWithout = median(without, 0);
            long contextWith = median(with, 0);
            report.put(row(), system.name(), String.format("%,d / %,d (+%,d)", contextWithout, contextWith,
                    contextWith - contextWithout));
            report.note(String.format("%s, start-up: JVM start to context ready, median: %,d ms without, %,d ms with "
                    + "the starter", system.name(), median(without, 1), median(with, 1)));
        }
    }

    /** @return the context's start time and the JVM's uptime when it was ready, in ms */
    private static long[] probe(boolean withStarter, Map<String, Object> properties)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                StartupProbe.class.getName(), withStarter ? "with" : "without"));
        properties.forEach((name, value) -> command.add(name + "=" + value));
        Path log = Files.createTempFile("delay-task-startup", ".log");
        try {
            Process process = ChildProcesses.start(new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()));
            boolean exited = process.waitFor(2, TimeUnit.MINUTES);
            if (!exited) {
                process.destroyForcibly();
            }
            List<String> output = Files.readAllLines(log, StandardCharsets.UTF_8);
            if (!exited || process.exitValue() != 0) {
                throw new IllegalStateException("The start-up JVM failed:\n" + String.join("\n", output));
            }
            return figures(output);
        }
        finally {
            Files.deleteIfExists(log);
        }
    }

    private static long[] figures(List<String> output) {
        for (String line : output) {
            if (line.startsWith(StartupProbe.MARKER)) {
                String[] figures = line.substring(StartupProbe.MARKER.length()).strip().split(" ");
                return new long[] { Long.parseLong(figures[0].substring("context=".length())),
                        Long.parseLong(figures[1].substring("uptime=".length())) };
            }
        }
        throw new IllegalStateException("The start-up JVM printed no figures:\n" + String.join("\n", output));
    }

    private static long median(List<long[]> runs, int index) {
        List<Long> values = new ArrayList<>(runs.stream().map((run) -> run[index]).toList());
        Collections.sort(values);
        return values.get(values.size() / 2);
    }

}
