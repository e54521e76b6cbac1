package io.github.delaytask.benchmark.system;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every process the benchmark starts (instance JVMs, a Redis server of its own) is started here, so that whatever
 * ends the benchmark (its end, a failure, Ctrl-C) can kill those still running: {@link #killAll()}, from the
 * benchmark's shutdown hook. The set is static for that hook's sake.
 */
public final class ChildProcesses {

    /** The system property of JVM options added to the command line of every instance JVM. */
    static final String INSTANCE_JVM_OPTIONS = "delaytask.benchmark.instance-jvm-options";

    /** Replaced in the instance JVM options by a number of each JVM's own, e.g. for a profile's file name. */
    static final String JVM_NUMBER = "{jvm}";

    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    private static final AtomicInteger STARTED = new AtomicInteger();

    private ChildProcesses() {
    }

    /** The command of a JVM with this JVM's class path, running a main class of the benchmark. */
    static List<String> java(String runName, String maxHeap, Class<?> mainClass) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + maxHeap));
        // a profiler for the instance JVMs, e.g.
        // -Ddelaytask.benchmark.instance-jvm-options=-XX:StartFlightRecording=filename=jvm{jvm}.jfr,dumponexit=true
        String options = System.getProperty(INSTANCE_JVM_OPTIONS, "").strip();
        if (!options.isEmpty()) {
            command.addAll(List.of(options.split("\\s+")));
        }
        // the run's name is on the command line, so that ps shows whose process it is
        command.addAll(List.of("-Ddelaytask.benchmark.run=" + runName, "-cp", System.getProperty("java.class.path"),
                mainClass.getName()));
        return command;
    }

    public static Process start(ProcessBuilder builder) throws IOException {
        String number = Integer.toString(STARTED.incrementAndGet());
        List<String> command = new ArrayList<>(builder.command()); // the builder's own list may be shared, or fixed
        command.replaceAll((argument) -> argument.replace(JVM_NUMBER, number));
        builder.command(command);
        Process process = builder.start();
        RUNNING.add(process);
        process.onExit().thenRun(() -> RUNNING.remove(process));
        return process;
    }

    /** Ask a process to end, and kill it if it has not within the grace time. */
    static void stop(Process process, Duration grace) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        finally {
            RUNNING.remove(process);
        }
    }

    /** Kill every process still running, and wait a little for them to go. */
    public static void killAll() {
        for (Process process : List.copyOf(RUNNING)) {
            process.destroyForcibly();
        }
        for (Process process : List.copyOf(RUNNING)) {
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

}
