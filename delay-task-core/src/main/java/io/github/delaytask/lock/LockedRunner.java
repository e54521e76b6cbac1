package io.github.delaytask.lock;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import io.github.delaytask.DistributedLocks;
import io.github.delaytask.DistributedLocks.LockHandle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;

/**
 * Runs work on the calling thread under a {@link DistributedLocks} lock, or skips it while another holder has the
 * lock, and records each run. Serves both {@code @DistributedLock} methods and runs by hand. Public for wiring.
 * <p>
 * A thread that holds a lock through this runner runs further work under the same name at once: a locked method
 * calling another that shares its lock, or a run by hand calling through the bean's proxy, must not lock itself
 * out.
 */
public class LockedRunner {

    private static final Log logger = LogFactory.getLog(LockedRunner.class);

    private final DistributedLocks locks;

    private final LockRecords records;

    private final Clock clock;

    // an instance field, not a static one: each application context has its own runner
    private final ThreadLocal<Set<String>> heldByThread = new ThreadLocal<>();

    private volatile String host;

    public LockedRunner(DistributedLocks locks, LockRecords records, Clock clock) {
        this.locks = locks;
        this.records = records;
        this.clock = clock;
    }

    /**
     * Runs a job now, on this thread, under its lock, as its schedule would; a failure is returned, not thrown.
     * When another holder has the lock the job does not run, and the result tells what is known of the holder.
     * @throws IllegalArgumentException if the job {@linkplain LockedJob#whyNotRunnableByHand() cannot be run by
     * hand}
     */
    public RunResult runByHand(LockedJob job) {
        String reason = job.whyNotRunnableByHand();
        Assert.isTrue(reason == null, () -> job.describe() + " cannot be run by hand: " + reason);
        Method method = job.method();
        ReflectionUtils.makeAccessible(method);
        RunResult result = run(job.name(), job.lockAtMostFor(), job.lockAtLeastFor(), true,
                () -> invoke(method, job.bean()));
        if (result.status() == RunResult.Status.LOCKED) {
            return result.withHolder(this.records.lastRun(job.name()).orElse(null),
                    this.records.lockRemaining(job.name()).orElse(null));
        }
        return result;
    }

    /** The latest recorded run of a lock, on any instance. */
    public Optional<LastRun> lastRun(String name) {
        return this.records.lastRun(name);
    }

    /** How long a lock is still held, or empty if it is free or that is not known. */
    public Optional<Duration> lockRemaining(String name) {
        return this.records.lockRemaining(name);
    }

    /**
     * Runs work under a lock, or skips it while another holder has the lock.
     * @param record whether to record the run, which only a fixed lock name is worth: per-entity names would leave a
     * record for every entity
     */
    RunResult run(String name, Duration lockAtMostFor, Duration lockAtLeastFor, boolean record, Work work) {
        Set<String> held = this.heldByThread.get();
        if (held != null && held.contains(name)) {
            return execute(work, this.clock.millis());
        }
        Optional<LockHandle> lock = this.locks.tryLock(name, lockAtMostFor);
        if (lock.isEmpty()) {
            return RunResult.locked();
        }
        if (held == null) {
            held = new HashSet<>();
            this.heldByThread.set(held);
        }
        held.add(name);
        LastRun run = LastRun.started(UUID.randomUUID().toString(), host(), ProcessHandle.current().pid(),
                this.clock.instant());
        if (record) {
            recordSafely(name, () -> this.records.runStarted(name, run));
        }
        RunResult result = execute(work, run.startedAt().toEpochMilli());
        held.remove(name);
        if (held.isEmpty()) {
            this.heldByThread.remove();
        }
        if (record) {
            LastRun finished = run.finished(run.startedAt().plus(result.duration()), result.error());
            recordSafely(name, () -> this.records.runFinished(name, finished));
        }
        release(lock.get(), lockAtMostFor, lockAtLeastFor);
        return result;
    }

    private RunResult execute(Work work, long startedAt) {
        try {
            Object value = work.run();
            return RunResult.ran(value, Duration.ofMillis(this.clock.millis() - startedAt));
        }
        catch (Throwable ex) {
            return RunResult.failed(ex, Duration.ofMillis(this.clock.millis() - startedAt));
        }
    }

    private void release(LockHandle lock, Duration lockAtMostFor, Duration lockAtLeastFor) {
        try {
            if (!lock.unlock(lockAtLeastFor)) {
                logger.warn("Lock '" + lock.name() + "' lapsed before its run ended, which took longer than its "
                        + "lockAtMostFor of " + lockAtMostFor + "; another instance may have run at the same time");
            }
        }
        catch (RuntimeException ex) {
            logger.warn("Could not release lock '" + lock.name() + "'; it lapses within " + lockAtMostFor, ex);
        }
    }

    private void recordSafely(String name, Runnable write) {
        try {
            write.run();
        }
        catch (RuntimeException ex) {
            logger.warn("Could not record a run of lock '" + name + "'; the run itself is not affected", ex);
        }
    }

    private String host() {
        String host = this.host;
        if (host == null) {
            // looked up on first use, not at start-up: a slow resolver must not delay the application
            try {
                host = InetAddress.getLocalHost().getHostName();
            }
            catch (UnknownHostException ex) {
                host = "unknown";
            }
            this.host = host;
        }
        return host;
    }

    private static Object invoke(Method method, Object bean) throws Throwable {
        try {
            return method.invoke(bean);
        }
        catch (InvocationTargetException ex) {
            throw ex.getTargetException();
        }
    }

    /**
     * Work to run under a lock.
     */
    @FunctionalInterface
    interface Work {

        Object run() throws Throwable;

    }

}
