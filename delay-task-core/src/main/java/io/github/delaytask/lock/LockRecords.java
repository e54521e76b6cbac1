package io.github.delaytask.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * What the cluster knows about a lock: its latest run, and how long it is still held. Public for wiring.
 * <p>
 * Records are best effort: a lock works without them, so a failure to write one is logged, not thrown.
 */
public interface LockRecords {

    /** Records that a run started, replacing the record of the run before. */
    void runStarted(String name, LastRun run);

    /** Records that a run ended, unless a later run has started since. */
    void runFinished(String name, LastRun run);

    /** The latest run of the lock, if one was recorded. */
    Optional<LastRun> lastRun(String name);

    /** How long the lock is still held, or empty if no instance holds it. */
    Optional<Duration> lockRemaining(String name);

    /**
     * Records nothing: for a {@link io.github.delaytask.DistributedLocks} that is not the starter's own.
     */
    static LockRecords none() {
        return new LockRecords() {

            @Override
            public void runStarted(String name, LastRun run) {
            }

            @Override
            public void runFinished(String name, LastRun run) {
            }

            @Override
            public Optional<LastRun> lastRun(String name) {
                return Optional.empty();
            }

            @Override
            public Optional<Duration> lockRemaining(String name) {
                return Optional.empty();
            }

        };
    }

}
