package io.github.delaytask.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One {@code redis-server} of the machine's own Redis (found on the {@code PATH}), run in a directory of its own,
 * its output in {@code redis.log} there.
 */
final class RedisProcess {

    private final String name;

    private final int port;

    private final Path directory;

    private final Process process;

    private RedisProcess(String name, int port, Path directory, Process process) {
        this.name = name;
        this.port = port;
        this.directory = directory;
        this.process = process;
    }

    /**
     * Start {@code redis-server <arguments>} in the given directory.
     * @param name a name for messages
     * @param port the port the arguments make it listen on
     * @param directory its working directory, created if missing
     * @param arguments a config file or options, as on the command line
     * @return the started process, not yet necessarily accepting connections
     */
    static RedisProcess start(String name, int port, Path directory, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add("redis-server");
        command.addAll(arguments);
        try {
            Files.createDirectories(directory);
            Process process = new ProcessBuilder(command).directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("redis.log").toFile())
                .start();
            return new RedisProcess(name, port, directory, process);
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start redis-server for " + name + "; the tests tagged "
                    + "'cluster' need Redis installed with redis-server and redis-cli on the PATH", ex);
        }
    }

    String name() {
        return this.name;
    }

    int port() {
        return this.port;
    }

    Path directory() {
        return this.directory;
    }

    boolean isAlive() {
        return this.process.isAlive();
    }

    /** {@code kill -9}: the process ends at once, without saving or telling anyone. */
    void kill() {
        this.process.destroyForcibly();
        try {
            if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(this.name + " did not die");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** The end of its log, for failure messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(this.directory.resolve("redis.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        }
        catch (IOException | UncheckedIOException ex) {
            return "(no log: " + ex.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return this.name + " on port " + this.port;
    }

}
