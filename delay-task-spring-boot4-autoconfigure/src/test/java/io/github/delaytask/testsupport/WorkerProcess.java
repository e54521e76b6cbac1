package io.github.delaytask.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A JVM of its own running a main class of the test class path, for tests that kill processes.
 * <p>
 * Its output goes to {@code target/worker-processes/<name>.log}. The worker's standard input stays a pipe from this
 * JVM, so a main that exits when it reads end-of-file (see {@link #exitWhenParentDies()}) does not outlive a test JVM
 * that was itself killed.
 */
public final class WorkerProcess implements AutoCloseable {

    private static final Path LOG_DIRECTORY = Path.of("target", "worker-processes");

    private final String name;

    private final Process process;

    private final Path log;

    private WorkerProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * Start {@code java -cp <this class path> <mainClass> <args>}.
     * @param name a name for the log file and messages
     * @param mainClass a class with a {@code main} method
     * @param jvmOptions options for the JVM, such as {@code -Xmx256m}
     * @param args the program's arguments
     * @return the started process
     */
    public static WorkerProcess start(String name, Class<?> mainClass, List<String> jvmOptions, List<String> args) {
        return start(name, mainClass, jvmOptions, args, Map.of());
    }

    /**
     * Start {@code java -cp <this class path> <mainClass> <args>} with more environment variables, such as those
     * that give the process a clock of its own ({@link FakeClock}).
     */
    public static WorkerProcess start(String name, Class<?> mainClass, List<String> jvmOptions, List<String> args,
            Map<String, String> environment) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        try {
            Files.createDirectories(LOG_DIRECTORY);
            Path log = LOG_DIRECTORY.resolve(name + ".log");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            return new WorkerProcess(name, process, log);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + name, ex);
        }
    }

    /**
     * For the main method of a worker: exit when the standard input ends, which happens when the JVM that started
     * this one dies, even by {@code kill -9}.
     */
    public static void exitWhenParentDies() {
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    // nothing is ever written; read until the pipe closes
                }
            }
            catch (IOException ex) {
                // the pipe broke: the parent is gone as well
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    public String name() {
        return this.name;
    }

    public long pid() {
        return this.process.pid();
    }

    public boolean isAlive() {
        return this.process.isAlive();
    }

    /** Everything the process printed so far. */
    public String output() {
        try {
            return Files.readString(this.log, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            return "(no output: " + ex + ")";
        }
    }

    /**
     * Wait until the process printed the given text; fail at once, with its output, if it exits first.
     */
    public void awaitOutput(String text, Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() -> {
            String output = output();
            if (output.contains(text)) {
                return true;
            }
            if (!this.process.isAlive()) {
                throw new IllegalStateException(this.name + " exited with " + this.process.exitValue()
                        + " before printing '" + text + "':\n" + tail(output));
            }
            return false;
        });
    }

    /** {@code kill -9}: the process gets no chance to finish anything. Returns once it is gone. */
    public void kill() {
        this.process.destroyForcibly();
        waitForExit(Duration.ofSeconds(10));
    }

    /** {@code kill}: the process may shut down cleanly within the timeout, after which it is killed. */
    public void stop(Duration timeout) {
        this.process.destroy();
        if (!waitForExit(timeout)) {
            kill();
        }
    }

    @Override
    public void close() {
        if (this.process.isAlive()) {
            kill();
        }
    }

    private boolean waitForExit(Duration timeout) {
        try {
            return this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String tail(String output) {
        return (output.length() > 4000) ? "..." + output.substring(output.length() - 4000) : output;
    }

    @Override
    public String toString() {
        return this.name + " (pid " + pid() + ")";
    }

}
