package io.github.delaytask.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.github.delaytask.lock.LastRun;
import io.github.delaytask.lock.LockedJob;
import io.github.delaytask.lock.LockedJobs;
import io.github.delaytask.lock.LockedRunner;
import io.github.delaytask.lock.RunResult;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.lang.Nullable;

/**
 * The {@code scheduledlocks} Actuator endpoint: lists the {@code @DistributedLock} methods with the latest run of
 * each lock on any instance, and runs one now under its lock, for a job whose run failed or was missed.
 * <p>
 * A run by hand happens on the instance that received the request, on the request's thread, and is refused while
 * another instance holds the lock. Only a method without parameters whose lock has a fixed name can be run by hand.
 */
@Endpoint(id = "scheduledlocks")
public class ScheduledLocksEndpoint {

    /** The action of a run by hand. */
    public static final String RUN = "run";

    private final LockedJobs jobs;

    private final LockedRunner runner;

    public ScheduledLocksEndpoint(LockedJobs jobs, LockedRunner runner) {
        this.jobs = jobs;
        this.runner = runner;
    }

    @ReadOperation
    public LocksDescriptor scheduledLocks() {
        Map<String, List<LockedJob>> byName = this.jobs.all()
            .stream()
            .collect(Collectors.groupingBy(LockedJob::name, TreeMap::new, Collectors.toList()));
        return new LocksDescriptor(byName.values().stream().map(this::describe).toList());
    }

    @ReadOperation
    @Nullable
    public LockDescriptor scheduledLock(@Selector String name) {
        List<LockedJob> named = this.jobs.named(name);
        return named.isEmpty() ? null : describe(named);
    }

    /**
     * Runs the job of a lock now, on this instance, under the lock. Over HTTP the request needs a JSON body,
     * {@code {"action": "run"}}, which a cross-site form cannot send.
     * @param name the lock's name
     * @param action what to do; {@value #RUN} is the one action
     * @return the outcome, or {@code null} if no job has that lock
     */
    @WriteOperation
    @Nullable
    public RunDescriptor runScheduledLock(@Selector String name, String action) {
        List<LockedJob> named = this.jobs.named(name);
        if (named.isEmpty()) {
            return null;
        }
        if (!RUN.equals(action)) {
            return new RunDescriptor(name, RunStatus.INVALID_REQUEST, null, null, null, null,
                    "unknown action '" + action + "'; the one action is \"" + RUN + "\"");
        }
        String reason = whyNotRunnableByHand(named);
        if (reason != null) {
            return new RunDescriptor(name, RunStatus.NOT_RUNNABLE, null, null, null, null, reason);
        }
        RunResult result = this.runner.runByHand(named.get(0));
        return switch (result.status()) {
            case RAN -> new RunDescriptor(name, RunStatus.RAN, result.duration(), null, null, null, null);
            case FAILED -> new RunDescriptor(name, RunStatus.FAILED, result.duration(),
                    String.valueOf(result.error()), null, null, null);
            case LOCKED -> new RunDescriptor(name, RunStatus.LOCKED, null, null, LastRunDescriptor.of(result.lastRun()),
                    result.lockRemaining(), "another instance holds the lock");
        };
    }

    private LockDescriptor describe(List<LockedJob> named) {
        LockedJob first = named.get(0);
        String reason = whyNotRunnableByHand(named);
        // a name with SpEL stands for many locks, none of them recorded
        LastRun lastRun = first.hasFixedName() ? this.runner.lastRun(first.name()).orElse(null) : null;
        Duration lockRemaining = first.hasFixedName() ? this.runner.lockRemaining(first.name()).orElse(null) : null;
        return new LockDescriptor(first.name(), named.stream().map(LockedJob::describe).toList(),
                first.lockAtMostFor(), first.lockAtLeastFor(), reason == null, reason, lockRemaining,
                LastRunDescriptor.of(lastRun));
    }

    @Nullable
    private static String whyNotRunnableByHand(List<LockedJob> named) {
        if (named.size() > 1) {
            return named.size() + " methods share this lock, so which to run is not clear: "
                    + named.stream().map(LockedJob::describe).collect(Collectors.joining(", "));
        }
        return named.get(0).whyNotRunnableByHand();
    }

    /**
     * Every lock of the application's {@code @DistributedLock} methods.
     * @param locks the locks, one per name
     */
    public record LocksDescriptor(List<LockDescriptor> locks) implements OperationResponseBody {
    }

    /**
     * One lock and the methods that take it.
     * @param name the lock's name, or its SpEL template
     * @param methods the beans and methods that take it
     * @param lockAtMostFor how long it is held at most
     * @param lockAtLeastFor how long it is held at least
     * @param runnableByHand whether it can be run by hand
     * @param notRunnableReason why it cannot be run by hand, or {@code null}
     * @param lockRemaining how long it is still held, or {@code null} if it is free
     * @param lastRun its latest run on any instance, or {@code null}
     */
    public record LockDescriptor(String name, List<String> methods, Duration lockAtMostFor, Duration lockAtLeastFor,
            boolean runnableByHand, @Nullable String notRunnableReason, @Nullable Duration lockRemaining,
            @Nullable LastRunDescriptor lastRun) implements OperationResponseBody {
    }

    /**
     * A run of a lock's job on some instance.
     * @param host host name of the instance
     * @param pid process id of the instance
     * @param startedAt when it started
     * @param finishedAt when it ended, or {@code null} while it runs or if its instance died
     * @param duration how long it took, or {@code null}
     * @param outcome {@code RUNNING}, {@code SUCCEEDED} or {@code FAILED}
     * @param error the exception it threw, or {@code null}
     */
    public record LastRunDescriptor(String host, long pid, Instant startedAt, @Nullable Instant finishedAt,
            @Nullable Duration duration, LastRun.Outcome outcome, @Nullable String error) {

        @Nullable
        static LastRunDescriptor of(@Nullable LastRun run) {
            return (run != null) ? new LastRunDescriptor(run.host(), run.pid(), run.startedAt(), run.finishedAt(),
                    run.duration(), run.outcome(), run.error()) : null;
        }

    }

    /**
     * The outcome of a run by hand.
     * @param name the lock's name
     * @param status what happened
     * @param duration how long the job took, if it ran
     * @param error the exception it threw, if it failed
     * @param heldBy the latest run of the lock, if it was held: the holder, or the instance that died holding it
     * @param lockRemaining how long the lock is still held, if it was held
     * @param reason why the job did not run, if it did not
     */
    public record RunDescriptor(String name, RunStatus status, @Nullable Duration duration, @Nullable String error,
            @Nullable LastRunDescriptor heldBy, @Nullable Duration lockRemaining,
            @Nullable String reason) implements OperationResponseBody {
    }

    /**
     * What happened to a run by hand.
     */
    public enum RunStatus {

        /** The job ran and returned. */
        RAN,

        /** The job ran and threw. */
        FAILED,

        /** Another instance holds the lock, so the job did not run. */
        LOCKED,

        /** The job cannot be run by hand. */
        NOT_RUNNABLE,

        /** The request asked for something else than a run. */
        INVALID_REQUEST

    }

}
