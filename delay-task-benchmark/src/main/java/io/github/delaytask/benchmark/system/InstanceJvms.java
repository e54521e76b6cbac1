package io.github.delaytask.benchmark.system;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Instance JVMs: the benchmark's delay-task application in processes of their own ({@link InstanceMain}), on this
 * JVM's class path and settings the caller gives (storage, key prefix, which listeners), talked to over their
 * standard input and output. Closing stops them; {@link ChildProcesses} kills any left when the benchmark ends.
 */
public final class InstanceJvms implements AutoCloseable {

    /** Which listeners an instance JVM has ({@code benchmark.listeners}). */
    public enum Listeners {

        /** One per {@link TaskKind#TASK} and {@link TaskKind#BACKLOG}, as the benchmark's own instances. */
        KINDS,

        /** The 64 of {@link QueueListeners}, and no other. */
        QUEUES

    }

    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

    private final List<Jvm> jvms;

    private InstanceJvms(List<Jvm> jvms) {
        this.jvms = jvms;
    }

    /**
     * Start the JVMs, all at once, and wait until each has started its application.
     * @param properties the application's settings, as {@link DelayTaskSystem.Workspace#properties()}
     */
    public static InstanceJvms start(int count, Listeners listeners, Map<String, Object> properties, String runName)
            throws IOException {
        List<String> command = new ArrayList<>(ChildProcesses.java(runName, "1g", InstanceMain.class));
        properties.forEach((name, value) -> command.add(name + "=" + value));
        command.add("benchmark.listeners=" + listeners.name().toLowerCase(Locale.ROOT));
        List<Jvm> jvms = new ArrayList<>();
        InstanceJvms started = new InstanceJvms(jvms);
        try {
            for (int i = 0; i < count; i++) {
                jvms.add(new Jvm(ChildProcesses.start(new ProcessBuilder(command).redirectErrorStream(true))));
            }
            for (Jvm jvm : jvms) {
                jvm.await("ready", START_TIMEOUT);
            }
            return started;
        }
        catch (IOException | RuntimeException ex) {
            started.close();
            throw ex;
        }
    }

    public int size() {
        return this.jvms.size();
    }

    /** Handler calls in all the JVMs since the last reset. */
    public long handled() {
        this.jvms.forEach((jvm) -> jvm.send("count"));
        long handled = 0;
        for (Jvm jvm : this.jvms) {
            handled += Long.parseLong(jvm.answer());
        }
        return handled;
    }

    /**
     * Wait until the JVMs' handlers ran a number of times in all, asking every 5 ms.
     * @return whether they did in time
     */
    public boolean awaitHandled(long count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (handled() < count) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    /** The figures of all the JVMs since the last reset, summed. */
    public InstanceFigures figures() {
        this.jvms.forEach((jvm) -> jvm.send("report"));
        InstanceFigures sum = null;
        for (Jvm jvm : this.jvms) {
            InstanceFigures figures = InstanceFigures.parse(jvm.answer());
            sum = (sum != null) ? sum.plus(figures) : figures;
        }
        return sum;
    }

    /** Forget the figures so far. */
    public void reset() {
        this.jvms.forEach((jvm) -> jvm.send("reset"));
        this.jvms.forEach((jvm) -> jvm.await("reset", ANSWER_TIMEOUT));
    }

    /** Ask each JVM to stop its application, and kill those that have not within 30 s. */
    @Override
    public void close() {
        this.jvms.forEach((jvm) -> jvm.send("stop"));
        this.jvms.forEach((jvm) -> {
            try {
                if (!jvm.process.waitFor(30, TimeUnit.SECONDS)) {
                    ChildProcesses.stop(jvm.process, Duration.ofSeconds(5));
                }
            }
            catch (InterruptedException ex) {
                ChildProcesses.stop(jvm.process, Duration.ZERO);
                Thread.currentThread().interrupt();
            }
        });
    }

    /** One process: its answers, and the last lines of whatever else it printed, for the message of a failure. */
    private static final class Jvm {

        private final Process process;

        private final PrintWriter commands;

        private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

        private final Deque<String> output = new ArrayDeque<>();

        Jvm(Process process) {
            this.process = process;
            this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            Thread reader = new Thread(this::read, "instance-jvm-" + process.pid());
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith(InstanceMain.MARKER)) {
                        this.answers.add(line.substring(InstanceMain.MARKER.length()).strip());
                    }
                    else {
                        synchronized (this.output) {
                            this.output.add(line);
                            if (this.output.size() > 100) {
                                this.output.removeFirst();
                            }
                        }
                    }
                }
            }
            catch (IOException ex) {
                // the process is gone; answer() says so
            }
        }

        void send(String command) {
            if (this.process.isAlive()) {
                this.commands.println(command);
            }
        }

        String answer() {
            String answer = next(ANSWER_TIMEOUT);
            if (answer == null || answer.startsWith("failed")) {
                throw failure((answer != null) ? answer : "gave no answer");
            }
            return answer;
        }

        void await(String expected, Duration timeout) {
            String answer = next(timeout);
            if (!expected.equals(answer)) {
                throw failure("answered " + answer + " where " + expected + " was expected");
            }
        }

        /** The next answer, or null once the time is up or the process is gone. */
        private String next(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            try {
                while (System.nanoTime() < deadline) {
                    String answer = this.answers.poll(100, TimeUnit.MILLISECONDS);
                    if (answer != null || !this.process.isAlive()) {
                        return (answer != null) ? answer : this.answers.poll(1, TimeUnit.SECONDS);
                    }
                }
                return null;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        private IllegalStateException failure(String what) {
            String state = this.process.isAlive() ? "" : " (exited with " + this.process.exitValue() + ")";
            return new IllegalStateException("Instance JVM " + this.process.pid() + " " + what + state
                    + "; its last output:\n" + tail());
        }

        private String tail() {
            synchronized (this.output) {
                return String.join("\n", this.output);
            }
        }

    }

}
