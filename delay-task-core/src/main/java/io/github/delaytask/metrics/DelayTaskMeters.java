package io.github.delaytask.metrics;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

import io.github.delaytask.core.QueueId;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The meters of each queue, up to a number of queues, so that the series a monitoring system stores stay bounded
 * however many task types an application uses. Public for wiring.
 * <p>
 * A queue gets its meters when it is first seen, by an add, a run or a sample of the queues; past the limit a queue
 * gets none, and a warning says so once.
 */
public class DelayTaskMeters {

    private static final Log logger = LogFactory.getLog(DelayTaskMeters.class);

    private final MeterRegistry registry;

    private final int maxQueues;

    private final boolean timeHandlers;

    private final IntFunction<@Nullable String> names;

    private final Map<QueueId, QueueMeters> queues = new ConcurrentHashMap<>();

    /** Set once a queue was turned away, and said so: from then on no queue gets meters, and none waits for a lock. */
    private volatile boolean full;

    /**
     * @param registry where the meters go
     * @param maxQueues most queues given meters
     */
    public DelayTaskMeters(MeterRegistry registry, int maxQueues) {
        this(registry, maxQueues, true);
    }

    /**
     * @param registry where the meters go
     * @param maxQueues most queues given meters
     * @param timeHandlers whether to time handler runs on the {@code delaytask.listener} timer; not while the
     * {@code delaytask.listener} observation is made, whose meter handler keeps a timer of that name with tags of its
     * own, which a registry such as Prometheus's would refuse beside ours
     */
    public DelayTaskMeters(MeterRegistry registry, int maxQueues, boolean timeHandlers) {
        this(registry, maxQueues, timeHandlers, (type) -> null);
    }

    /**
     * @param registry where the meters go
     * @param maxQueues most queues given meters
     * @param timeHandlers whether to time handler runs on the {@code delaytask.listener} timer
     * @param names the readable name of a task type, or null when it has none: the {@code task.name} tag of its
     * queues' meters, which is the type's number otherwise
     */
    public DelayTaskMeters(MeterRegistry registry, int maxQueues, boolean timeHandlers,
            IntFunction<@Nullable String> names) {
        this.names = names;
        Assert.isTrue(maxQueues >= 0, () -> "delay-task.metrics.max-queues (" + maxQueues + ") must not be negative");
        this.registry = registry;
        this.maxQueues = maxQueues;
        this.timeHandlers = timeHandlers;
    }

    MeterRegistry registry() {
        return this.registry;
    }

    /** The queues that have meters. */
    Set<QueueId> queues() {
        return Set.copyOf(this.queues.keySet());
    }

    /** The meters of a queue, registered now if it has none yet; null past the limit. */
    @Nullable QueueMeters of(QueueId queue) {
        QueueMeters meters = this.queues.get(queue);
        return (meters != null || this.full) ? meters : register(queue);
    }

    private synchronized @Nullable QueueMeters register(QueueId queue) {
        QueueMeters meters = this.queues.get(queue);
        if (meters != null) {
            return meters;
        }
        if (this.queues.size() >= this.maxQueues) {
            if (!this.full) {
                this.full = true;
                logger.warn("delay-task metrics cover at most " + this.maxQueues + " queue(s) "
                        + "(delay-task.metrics.max-queues): queue " + queue + " and any further ones get no meters of "
                        + "their own");
            }
            return null;
        }
        String name = this.names.apply(queue.taskType());
        meters = new QueueMeters(this.registry, queue, this.timeHandlers,
                (name != null) ? name : Integer.toString(queue.taskType()));
        this.queues.put(queue, meters);
        return meters;
    }

}
