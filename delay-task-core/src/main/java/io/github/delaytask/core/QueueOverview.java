package io.github.delaytask.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.github.delaytask.redis.QueueStats;
import io.github.delaytask.store.TaskStore.LiveTasks;
import io.github.delaytask.store.TaskStore;

import org.jspecify.annotations.Nullable;

/**
 * What each queue known to the cluster holds, in Redis and in the database, for the {@code delaytasks} endpoint.
 * Public for wiring.
 * <p>
 * A queue is known when the Redis registry has it, when this instance has a listener for it, or when the database
 * holds live or dead tasks of it: a queue whose Redis keys were lost, or whose tasks are not due within the preload
 * window yet, still shows. Each look costs two Redis calls per queue (its counts and its paused flag), and two
 * database queries grouped by queue, which read the whole of {@code taskinfo} and the dead tasks' index: those are
 * taken at most every {@link #COUNTS_FOR}, whatever the number of pages open, and again after a change made here.
 * Without Redis, the registry is the database's table of paused queues, each look reads it once per queue, and
 * the counts of Redis are zero.
 */
public class QueueOverview {

    private static final Comparator<QueueId> BY_TYPE_THEN_PRIORITY = Comparator.comparingInt(QueueId::taskType)
        .thenComparingInt(QueueId::priority);

    private final TaskStore store;

    private final QueueRegistry queues;

    private final Supplier<Map<QueueId, String>> listeners;

    /**
     * How long the database's counts serve: each open dashboard asks every 5 s, and a count of the live tasks reads
     * all of them, a million or more where tasks wait for days.
     */
    public static final Duration COUNTS_FOR = Duration.ofSeconds(5);

    private final Supplier<Map<Integer, String>> names;

    private final LongSupplier nanoTime;

    /** Guarded by this. */
    private @Nullable Counts counts;

    /** Changes made here so far: counts taken before the latest are taken again. */
    private final AtomicLong changes = new AtomicLong();

    /**
     * @param listeners the queues with a listener on this instance, each with the listener's method; taken on each
     * look, as listeners start after this is created
     */
    public QueueOverview(TaskStore store, QueueRegistry queues, Supplier<Map<QueueId, String>> listeners) {
        this(store, queues, listeners, Map::of, System::nanoTime);
    }

    /**
     * @param listeners the queues with a listener on this instance, each with the listener's method; taken on each
     * look, as listeners start after this is created
     * @param names the readable names this instance's listeners give task types, by type; taken on each look
     */
    public QueueOverview(TaskStore store, QueueRegistry queues, Supplier<Map<QueueId, String>> listeners,
            Supplier<Map<Integer, String>> names) {
        this(store, queues, listeners, names, System::nanoTime);
    }

    /**
     * @param nanoTime the clock of the counts' age, as {@link System#nanoTime()}
     */
    QueueOverview(TaskStore store, QueueRegistry queues, Supplier<Map<QueueId, String>> listeners,
            Supplier<Map<Integer, String>> names, LongSupplier nanoTime) {
        this.store = store;
        this.queues = queues;
        this.listeners = listeners;
        this.names = names;
        this.nanoTime = nanoTime;
    }

    /** The readable names this instance's listeners give task types, by type; one look for a whole page. */
    public Map<Integer, String> names() {
        return this.names.get();
    }

    /**
     * A change was made here (a requeue, a cancel, a pause): the next look counts again. Never waits, not even for a
     * count under way.
     */
    public void changed() {
        this.changes.incrementAndGet();
    }

    /** The database's counts, taken again once older than {@link #COUNTS_FOR}; one caller counts, the others wait. */
    private synchronized Counts counts() {
        long now = this.nanoTime.getAsLong();
        long changesSoFar = this.changes.get();
        Counts current = this.counts;
        if (current == null || now - current.takenAt() >= COUNTS_FOR.toNanos()
                || current.changes() != changesSoFar) {
            current = new Counts(now, changesSoFar, this.store.countLiveByQueue(), this.store.countDeadByQueue());
            this.counts = current;
        }
        return current;
    }

    /** Every known queue, by task type then priority. */
    public List<QueueSummary> queues() {
        Map<QueueId, String> listening = this.listeners.get();
        Map<Integer, String> named = this.names.get();
        Counts counts = counts();
        Map<QueueId, LiveTasks> live = counts.live();
        Map<QueueId, Long> dead = counts.dead();
        Set<QueueId> known = new TreeSet<>(BY_TYPE_THEN_PRIORITY);
        known.addAll(this.queues.queues());
        known.addAll(listening.keySet());
        known.addAll(live.keySet());
        known.addAll(dead.keySet());
        List<QueueSummary> summaries = new ArrayList<>(known.size());
        for (QueueId queue : known) {
            QueueStats stats = this.queues.stats(queue);
            LiveTasks pending = live.get(queue);
            summaries.add(new QueueSummary(queue.taskType(), queue.priority(), listening.get(queue),
                    this.queues.paused(queue), stats.future(), stats.ready(), stats.inFlight(),
                    (pending != null) ? pending.count() : 0, dead.getOrDefault(queue, 0L),
                    Duration.ofMillis(stats.oldestDueWaitMillis()),
                    (pending != null) ? Instant.ofEpochMilli(pending.firstExecuteTime()) : null,
                    named.get(queue.taskType())));
        }
        return summaries;
    }

    /**
     * Whether the cluster knows the queue: this instance listens to it, Redis has it in use or paused, or the
     * database holds live or dead tasks of it.
     */
    public boolean known(QueueId queue) {
        if (this.listeners.get().containsKey(queue) || this.queues.paused(queue)
                || this.queues.queues().contains(queue)) {
            return true;
        }
        Counts counts = counts();
        return counts.live().containsKey(queue) || counts.dead().containsKey(queue);
    }

    /**
     * The database's counts of each queue, when they were taken (nanos of the overview's clock), and how many changes
     * made here they follow.
     */
    private record Counts(long takenAt, long changes, Map<QueueId, LiveTasks> live, Map<QueueId, Long> dead) {
    }

    /**
     * One queue.
     * @param taskType the task type
     * @param priority the priority
     * @param listener the listener method of this instance, or {@code null} if it has none for the queue
     * @param paused whether claims of the queue are stopped, on every instance
     * @param future ids in Redis not due yet
     * @param ready ids in Redis due and not claimed
     * @param inflight ids in Redis claimed by a consumer
     * @param pending live tasks in the database, running ones included, whether Redis has them or not
     * @param dead tasks in the database whose every attempt failed
     * @param oldestReadyAge how long the oldest due task not claimed has waited past its execute time
     * @param nextDueTime the earliest execute time of the live tasks, or {@code null} if there are none; in the past
     * when tasks are late
     * @param name the task type's readable name, or {@code null} if no listener of this instance names it
     */
    public record QueueSummary(int taskType, int priority, @Nullable String listener, boolean paused, long future,
            long ready, long inflight, long pending, long dead, Duration oldestReadyAge,
            @Nullable Instant nextDueTime, @Nullable String name) {
    }

}
