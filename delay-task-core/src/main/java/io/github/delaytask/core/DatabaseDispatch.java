package io.github.delaytask.core;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Dispatches from the database the queues whose Redis does not answer their claims: the database holds every task,
 * so a Redis that is down, fails over or restarts stops no task from firing; it only fires at the poll interval's
 * precision meanwhile. Such a queue is no longer claimed in Redis, so that no claim round waits for a Redis that does
 * not answer; a probe, on a thread of its own, asks Redis for the queues in turn once per poll interval, and a queue
 * goes back to Redis once its probe is answered.
 * <p>
 * Every claim, from Redis or from the database, is the database's version-checked claim, so a task runs once
 * across each switch, both ways. A queue with a cluster-wide limit is not dispatched from the database: its limit is
 * kept in Redis, and its tasks wait for Redis rather than break it.
 * <p>
 * Without Redis ({@code delay-task.redis.enabled=false}) it dispatches every queue, for good, and probes nothing.
 */
final class DatabaseDispatch {

    private static final Log logger = LogFactory.getLog(DatabaseDispatch.class);

    private static final Comparator<QueueId> ORDER = Comparator.comparingInt(QueueId::taskType)
        .thenComparingInt(QueueId::priority);

    private final TaskStore store;

    private final Probe probe;

    private final Pauses pauses;

    private final DueSignals signals;

    private final Clock clock;

    private final LongSupplier nanos;

    /** 0 when the database does not dispatch. */
    private final long pollMillis;

    /** Whether it dispatches every queue, there being no Redis. */
    private final boolean everyQueue;

    /** A probe answered later than this is no answer: Redis is as good as down for firing on time. */
    private final long probeTimeoutNanos;

    /**
     * The queues whose Redis did not answer their claims, until it answers their probe: those without a cluster-wide
     * limit are claimed from the database meanwhile, the others wait.
     */
    private final Set<QueueId> queues = ConcurrentHashMap.newKeySet();

    /** Queues with a cluster-wide limit, which only Redis keeps. */
    private final Set<QueueId> limited = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean probing = new AtomicBoolean();

    private volatile long nextProbeNanos;

    /** The queue the next probe round starts with, so that one that never answers hides no other. */
    private int firstProbed;

    /** Guarded by this; null until the first probe. Its thread ends when idle. */
    private @Nullable ThreadPoolExecutor prober;

    /**
     * @param pollInterval how often a queue is claimed from while Redis does not answer; zero for never
     * @param claimTimeoutMillis how long a probe may take to count as answered: one slower would have the queue
     * taken over again at its next claim
     * @param clock the clock of execute times
     * @param nanos the monotonic clock, nanos
     */
    DatabaseDispatch(TaskStore store, Probe probe, Pauses pauses, DueSignals signals, Duration pollInterval,
            long claimTimeoutMillis, Clock clock, LongSupplier nanos) {
        this(store, probe, pauses, signals, pollInterval, claimTimeoutMillis, clock, nanos, false);
    }

    /** @param everyQueue whether it dispatches every queue, for good: there is no Redis */
    DatabaseDispatch(TaskStore store, Probe probe, Pauses pauses, DueSignals signals, Duration pollInterval,
            long claimTimeoutMillis, Clock clock, LongSupplier nanos, boolean everyQueue) {
        this.everyQueue = everyQueue;
        this.store = store;
        this.probe = probe;
        this.pauses = pauses;
        this.signals = signals;
        this.pollMillis = pollInterval.toMillis();
        this.probeTimeoutNanos = (claimTimeoutMillis < Long.MAX_VALUE / 1_000_000)
                ? TimeUnit.MILLISECONDS.toNanos(claimTimeoutMillis) : Long.MAX_VALUE;
        this.clock = clock;
        this.nanos = nanos;
    }

    /** The queues among those to be claimed whose Redis does not answer their claims, with their counts. */
    Map<QueueId, Integer> own(Map<QueueId, Integer> counts) {
        if (this.everyQueue) {
            return counts;
        }
        if (this.queues.isEmpty()) {
            return Map.of();
        }
        Map<QueueId, Integer> own = new LinkedHashMap<>();
        counts.forEach((queue, count) -> {
            if (this.queues.contains(queue)) {
                own.put(queue, count);
            }
        });
        return own;
    }

    /**
     * A claim of the queue failed in Redis: it is no longer claimed there until Redis answers its probe, and the
     * database dispatches it meanwhile, unless it has a cluster-wide limit.
     * @return the queue's batch of this round: none, and a look again at once, for a claim from the database whose
     * handlers' deadlines count from now rather than from before the claim that failed; none when turned off
     */
    Claims.@Nullable Batch takeOver(QueueId queue) {
        if (this.pollMillis <= 0) {
            return null;
        }
        if (this.queues.add(queue)) {
            logger.warn("Redis did not answer the claim of queue " + queue + ": " + (this.limited.contains(queue)
                    ? "it has a cluster-wide limit, which only Redis keeps, so its tasks wait for Redis"
                    : "its due tasks are claimed from the database every " + this.pollMillis
                            + " ms until Redis answers again"));
            this.nextProbeNanos = this.nanos.getAsLong() + TimeUnit.MILLISECONDS.toNanos(this.pollMillis);
        }
        return new Claims.Batch(List.of(), 0, this.limited.contains(queue) ? this.pollMillis : 0, false);
    }

    /** The queue has a cluster-wide limit: while Redis does not answer, its tasks wait for Redis, which keeps it. */
    void limited(QueueId queue) {
        this.limited.add(queue);
    }

    /** Whether the queue has a cluster-wide limit, which only Redis keeps. */
    boolean isLimited(QueueId queue) {
        return !this.limited.isEmpty() && this.limited.contains(queue);
    }

    /**
     * Claim due tasks of queues from the database, and probe Redis when a probe is due.
     * @param counts how many tasks to claim from each queue
     * @param now now by the clock of execute times, epoch ms
     * @return the tasks won in each queue; a queue known to be paused claims none, nor one with a cluster-wide limit
     * @throws RuntimeException what the database failed with
     */
    Map<QueueId, Claims.Batch> claim(Map<QueueId, Integer> counts, long now, long leaseUntil) {
        probeIfDue();
        if (this.everyQueue) {
            // no claim in Redis reads the pauses: the database keeps them
            this.pauses.reread(counts.keySet(), this.pollMillis);
        }
        Map<QueueId, Claims.Batch> batches = new HashMap<>();
        Map<QueueId, Integer> claimable = new LinkedHashMap<>();
        counts.forEach((queue, count) -> {
            if (this.pauses.knownPaused(queue)) {
                batches.put(queue, new Claims.Batch(List.of(), 0, this.pollMillis, true));
            }
            else if (this.limited.contains(queue)) {
                batches.put(queue, new Claims.Batch(List.of(), 0, this.pollMillis, false));
            }
            else {
                claimable.put(queue, count);
            }
        });
        Map<QueueId, List<StoredTask>> won = new HashMap<>();
        for (StoredTask task : this.store.claimDueInQueues(claimable, now, leaseUntil)) {
            won.computeIfAbsent(task.queue(), (queue) -> new ArrayList<>()).add(task);
        }
        Map<QueueId, Long> nextDue = nextDue(claimable, won, now);
        claimable.keySet().forEach((queue) -> {
            List<StoredTask> tasks = won.getOrDefault(queue, List.of());
            Long next = nextDue.get(queue);
            batches.put(queue, new Claims.Batch(tasks, tasks.size(),
                    (next != null) ? Math.max(1, next - now) : this.pollMillis, false));
        });
        return batches;
    }

    /**
     * When the queues that claimed all they had due have their next task within a poll interval, so that their
     * dispatcher sleeps until then rather than the whole interval; those that claimed their count are looked at again
     * at once. A read that fails leaves them to the poll.
     */
    private Map<QueueId, Long> nextDue(Map<QueueId, Integer> claimed, Map<QueueId, List<StoredTask>> won, long now) {
        List<QueueId> drained = new ArrayList<>();
        claimed.forEach((queue, count) -> {
            if (won.getOrDefault(queue, List.of()).size() < count) {
                drained.add(queue);
            }
        });
        if (drained.isEmpty()) {
            return Map.of();
        }
        try {
            return this.store.nextDueTimes(drained, now, now + this.pollMillis);
        }
        catch (RuntimeException ex) {
            logger.debug("Could not read when the queues " + drained + " next have a task due; they are looked at "
                    + "again in " + this.pollMillis + " ms", ex);
            return Map.of();
        }
    }

    /**
     * The queues this instance dispatches from the database, because Redis does not answer their claims; none when
     * it dispatches every queue.
     */
    Set<QueueId> queues() {
        Set<QueueId> queues = new TreeSet<>(ORDER);
        this.queues.stream().filter((queue) -> !this.limited.contains(queue)).forEach(queues::add);
        return Collections.unmodifiableSet(queues);
    }

    /** Whether the database dispatches queues when Redis does not answer. */
    boolean enabled() {
        return this.pollMillis > 0;
    }

    /** Whether it dispatches every queue, there being no Redis. */
    boolean everyQueue() {
        return this.everyQueue;
    }

    private void probeIfDue() {
        if (this.queues.isEmpty() || this.nanos.getAsLong() - this.nextProbeNanos < 0
                || !this.probing.compareAndSet(false, true)) {
            return;
        }
        try {
            prober().execute(this::probeRound);
        }
        catch (RejectedExecutionException | Error ex) {
            // no thread for it now (an Error too: no memory for a thread): the next claim tries again
            this.probing.set(false);
        }
    }

    /** Probe the queues in turn until one is not answered: those answered go back to Redis. */
    private void probeRound() {
        try {
            List<QueueId> order = new ArrayList<>(this.queues);
            order.sort(ORDER);
            if (order.isEmpty()) {
                return;
            }
            Collections.rotate(order, -(this.firstProbed++ % order.size()));
            for (QueueId queue : order) {
                if (!answers(queue)) {
                    break;
                }
                this.queues.remove(queue);
                logger.info("Redis answers the claims of queue " + queue + " again: its tasks are dispatched from "
                        + "Redis");
                // look at once, through Redis: what fell due meanwhile is due now
                this.signals.scheduled(queue, this.clock.millis());
            }
        }
        finally {
            this.nextProbeNanos = this.nanos.getAsLong() + TimeUnit.MILLISECONDS.toNanos(this.pollMillis);
            this.probing.set(false);
        }
    }

    private boolean answers(QueueId queue) {
        try {
            long start = this.nanos.getAsLong();
            this.probe.answers(queue);
            long took = this.nanos.getAsLong() - start;
            if (took > this.probeTimeoutNanos && !isLimited(queue)) {
                logger.debug("Redis answered the probe of queue " + queue + " only after "
                        + TimeUnit.NANOSECONDS.toMillis(took) + " ms, later than a claim may wait");
                return false;
            }
            return true;
        }
        catch (RuntimeException ex) {
            logger.debug("Redis does not answer the probe of queue " + queue + " yet", ex);
            return false;
        }
    }

    private synchronized ThreadPoolExecutor prober() {
        if (this.prober == null) {
            CustomizableThreadFactory threads = new CustomizableThreadFactory("delay-task-redis-probe-");
            threads.setDaemon(true);
            ThreadPoolExecutor started = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                    threads);
            started.allowCoreThreadTimeOut(true);
            this.prober = started;
        }
        return this.prober;
    }

    /** Asks Redis for a queue, as a claim of no task does. */
    @FunctionalInterface
    interface Probe {

        /** @throws RuntimeException when Redis does not answer */
        void answers(QueueId queue);

    }

}
