package io.github.delaytask.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A wall clock of its own for a worker JVM, which the test can step while the worker runs, through libfaketime
 * (Debian's {@code libfaketime}): {@link System#currentTimeMillis()} moves, {@link System#nanoTime()} does not.
 */
public final class FakeClock implements AutoCloseable {

    private static final Path LIBRARY = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    private final Path offsetFile;

    private FakeClock(Path offsetFile) {
        this.offsetFile = offsetFile;
    }

    /**
     * A clock that starts the given offset from the real one.
     * @throws IllegalStateException if libfaketime is not installed
     */
    public static FakeClock offsetBy(Duration offset) {
        if (!Files.isReadable(LIBRARY)) {
            throw new IllegalStateException(LIBRARY + " is missing: install Debian's libfaketime (.ci/run does)");
        }
        try {
            FakeClock clock = new FakeClock(Files.createTempFile("delay-task-clock", ".txt"));
            clock.setOffset(offset);
            return clock;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Step the clock to the given offset from the real one; the worker sees it within a second. */
    public void setOffset(Duration offset) {
        try {
            Files.writeString(this.offsetFile, ((offset.isNegative()) ? "" : "+") + offset.toSeconds() + "\n");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * The environment of a worker with this clock. Timed waits keep working only with the monotonic clock left
     * alone and libfaketime's fix of it off (without that, {@code Object.wait} returns at once).
     */
    public Map<String, String> environment() {
        return Map.of("LD_PRELOAD", LIBRARY.toString(), "FAKETIME_TIMESTAMP_FILE", this.offsetFile.toString(),
                "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0",
                "FAKETIME_CACHE_DURATION", "1");
    }

    @Override
    public void close() {
        try {
            Files.deleteIfExists(this.offsetFile);
        }
        catch (IOException ex) {
            // a temporary file
        }
    }

}
