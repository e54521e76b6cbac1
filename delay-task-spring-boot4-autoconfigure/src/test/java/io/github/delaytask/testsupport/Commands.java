package io.github.delaytask.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command line tool (redis-cli) to its end within a time limit.
 */
public final class Commands {

    private Commands() {
    }

    /**
     * @return what the command printed, standard output and error together
     * @throws IllegalStateException if it failed, or had not ended within the timeout (it is killed then)
     */
    public static String run(List<String> command, Duration timeout) {
        Path output = null;
        try {
            // the output goes to a file, not a pipe read to its end, so that a command that never ends (redis-cli
            // waiting for a cluster to agree) is given up on after the timeout instead of blocking the read
            output = Files.createTempFile("command", ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
            boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            if (!ended || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command)
                        + (ended ? " failed:\n" : " had not ended after " + timeout + ":\n") + printed);
            }
            return printed;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not run " + command.get(0), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        finally {
            if (output != null) {
                output.toFile().delete();
            }
        }
    }

}
