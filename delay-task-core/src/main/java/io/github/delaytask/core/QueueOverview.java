package io.github.delaytask.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import io.github.delaytask.redis.QueueId;
import io.github.delaytask.redis.QueueStats;
import io.github.delaytask.redis.TaskQueues;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.store.TaskStore.LiveTasks;

import org.jspecify.annotations.Nullable;

/**
 * What each queue known to the cluster holds, in Redis and in the database, for the {@code delaytasks} endpoint.
 * Public for wiring.
 * <p>
 * A queue is known when the Redis registry has it, when this instance has a listener for it, or when the database
 * holds live or dead tasks of it: a queue whose Redis keys were lost, or whose tasks are not due within the preload
 * window yet, still shows. Each look costs two database queries (grouped by queue) and two Redis calls per queue
 * (its counts and its paused flag).
 */
public class QueueOverview {

    private static final Comparator<QueueId> BY_TYPE_THEN_PRIORITY = Comparator.comparingInt(QueueId::taskType)
        .thenComparingInt(QueueId::priority);

    private final TaskStore store;

    private final TaskQueues queues;

    private final Supplier<Map<QueueId, String>> listeners;

    /**
     * @param listeners the queues with a listener on this instance, each with the listener's method; taken on each
     * look, as listeners start after this is created
     */
    public QueueOverview(TaskStore store, TaskQueues queues, Supplier<Map<QueueId, String>> listeners) {
        this.store = store;
        this.queues = queues;
        this.listeners = listeners;
    }

    /** Every known queue, by task type then priority. */
    public List<QueueSummary> queues() {
        Map<QueueId, String> listening = this.listeners.get();
        Map<QueueId, LiveTasks> live = this.store.countLiveByQueue();
        Map<QueueId, Long> dead = this.store.countDeadByQueue();
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
                    (pending != null) ? pending.count() : 0, dead.getOrDefault(queue, 0L), Duration.ofMillis(stats.oldestDueWaitMillis()),
                    (pending != null) ? Instant.ofEpochMilli(pending.firstExecuteTime()) : null));
        }
        return summaries;
    }

    /**
     * Whether the cluster knows the queue: this instance listens to it, Redis has it in use or paused, or the
     * database holds live or dead tasks of it.
     */
    public boolean known(QueueId queue) {
        return this.listeners.get().containsKey(queue) || this.queues.paused(queue)
                || this.queues.queues().contains(queue) || this.store.countLiveByQueue().containsKey(queue)
                || this.store.countDeadByQueue().containsKey(queue);
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
     */
    public record QueueSummary(int taskType, int priority, @Nullable String listener, boolean paused, long future,
            long ready, long inflight, long pending, long dead, Duration oldestReadyAge,
            @Nullable Instant nextDueTime) {
    }

}
