package io.github.delaytask.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToLongFunction;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskEvents;
import io.github.delaytask.redis.QueueStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Every meter of one queue, registered together when the queue is first seen, so that a queue's series all exist
 * (at zero) from then on. The gauges show what the last sample read.
 */
final class QueueMeters {

    static final String ADDED = "delaytask.tasks.added";

    static final String COMPLETED = "delaytask.tasks.completed";

    static final String REDELIVERED = "delaytask.tasks.redelivered";

    static final String LATENESS = "delaytask.lateness";

    static final String TIMEOUTS = "delaytask.listener.timeouts";

    static final String IGNORED_TIMEOUTS = "delaytask.listener.timeouts.ignored";

    static final String LISTENER = "delaytask.listener";

    static final String QUEUE_SIZE = "delaytask.queue.size";

    static final String QUEUE_LATENCY = "delaytask.queue.latency";

    static final String DEAD = "delaytask.tasks.dead";

    private final Counter added;

    private final Map<TaskEvents.Outcome, Counter> completed = new EnumMap<>(TaskEvents.Outcome.class);

    private final Counter redelivered;

    private final Counter timedOut;

    private final Counter ignoredTimeout;

    private final Timer lateness;

    private final @Nullable Timer succeeded;

    private final @Nullable Timer failed;

    private volatile QueueStats stats = QueueStats.EMPTY;

    private volatile long deadTasks;

    /**
     * @param timeHandlers whether to keep the {@code delaytask.listener} timers
     * @param name the task type's readable name, or its number
     */
    QueueMeters(MeterRegistry registry, QueueId queue, boolean timeHandlers, String name) {
        Tags tags = Tags.of("task.type", Integer.toString(queue.taskType()), "task.name", name, "task.priority",
                Integer.toString(queue.priority()));
        this.added = Counter.builder(ADDED)
            .description("Tasks added, counted once committed")
            .tags(tags)
            .register(registry);
        for (TaskEvents.Outcome outcome : TaskEvents.Outcome.values()) {
            this.completed.put(outcome, Counter.builder(COMPLETED)
                .description("Runs of tasks whose outcome was recorded")
                .tags(tags)
                .tag("outcome", outcome.tagValue())
                .register(registry));
        }
        this.redelivered = Counter.builder(REDELIVERED)
            .description("Claimed tasks made due again because their lease ran out")
            .tags(tags)
            .register(registry);
        this.timedOut = Counter.builder(TIMEOUTS)
            .description("Handler runs that ran past their timeout, were interrupted and counted as failed")
            .tags(tags)
            .register(registry);
        this.ignoredTimeout = Counter.builder(IGNORED_TIMEOUTS)
            .description("Handler runs that still ran a while after the interrupt of their timeout, each holding a "
                    + "handler thread until it returns")
            .tags(tags)
            .register(registry);
        this.lateness = Timer.builder(LATENESS)
            .description("Time from a task's execute time to the start of its handler")
            .tags(tags)
            .register(registry);
        this.succeeded = timeHandlers ? listenerTimer(registry, tags, "success") : null;
        this.failed = timeHandlers ? listenerTimer(registry, tags, "failure") : null;
        sizeGauge(registry, tags, "future", QueueStats::future);
        sizeGauge(registry, tags, "ready", QueueStats::ready);
        sizeGauge(registry, tags, "inflight", QueueStats::inFlight);
        Gauge.builder(QUEUE_LATENCY, this, (meters) -> meters.stats.oldestDueWaitMillis() / 1000.0)
            .description("How long the oldest task that is due and not claimed has waited")
            .baseUnit("seconds")
            .tags(tags)
            .register(registry);
        Gauge.builder(DEAD, this, (meters) -> meters.deadTasks)
            .description("Tasks that failed their last attempt and wait to be requeued")
            .tags(tags)
            .register(registry);
    }

    private static Timer listenerTimer(MeterRegistry registry, Tags tags, String outcome) {
        return Timer.builder(LISTENER)
            .description("Runs of a listener's handler")
            .tags(tags)
            .tag("outcome", outcome)
            .register(registry);
    }

    private void sizeGauge(MeterRegistry registry, Tags tags, String state, ToLongFunction<QueueStats> size) {
        Gauge.builder(QUEUE_SIZE, this, (meters) -> size.applyAsLong(meters.stats))
            .description("Task ids the queue holds in Redis, by state")
            .tags(tags)
            .tag("state", state)
            .register(registry);
    }

    Counter added() {
        return this.added;
    }

    Counter completed(TaskEvents.Outcome outcome) {
        return this.completed.get(outcome);
    }

    Counter redelivered() {
        return this.redelivered;
    }

    Timer lateness() {
        return this.lateness;
    }

    /** Runs that timed out, or those of them that then ignored the interrupt. */
    Counter timeouts(boolean ignored) {
        return ignored ? this.ignoredTimeout : this.timedOut;
    }

    /** The timer of handler runs; null while the {@code delaytask.listener} observation times them. */
    @Nullable Timer listener(boolean succeeded) {
        return succeeded ? this.succeeded : this.failed;
    }

    void sampled(QueueStats stats) {
        this.stats = stats;
    }

    void deadTasks(long count) {
        this.deadTasks = count;
    }

}
