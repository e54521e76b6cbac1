package io.github.delaytask.metrics;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskEvents;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;

/**
 * {@link TaskEvents} that count and time on Micrometer meters: tasks added and completed, the lateness and duration
 * of handler runs, and the pool of handler threads as Micrometer's {@code executor.*} meters. Public for wiring.
 */
public class MicrometerTaskEvents implements TaskEvents {

    /** The {@code name} tag of the handler pool's {@code executor.*} meters. */
    public static final String HANDLER_POOL = "delayTaskHandlers";

    private final DelayTaskMeters meters;

    private final Clock clock;

    /**
     * @param meters the meters of each queue
     * @param clock the clock lateness is measured by, that of delays
     */
    public MicrometerTaskEvents(DelayTaskMeters meters, Clock clock) {
        this.meters = meters;
        this.clock = clock;
    }

    @Override
    public void added(QueueId queue, int count) {
        QueueMeters queueMeters = this.meters.of(queue);
        if (queueMeters != null) {
            queueMeters.added().increment(count);
        }
    }

    @Override
    public void completed(QueueId queue, Outcome outcome, int count) {
        QueueMeters queueMeters = this.meters.of(queue);
        if (queueMeters != null) {
            queueMeters.completed(outcome).increment(count);
        }
    }

    @Override
    public void redelivered(QueueId queue, int count) {
        QueueMeters queueMeters = this.meters.of(queue);
        if (queueMeters != null) {
            queueMeters.redelivered().increment(count);
        }
    }

    /**
     * Records how late the handler starts, for tasks that had a time: a task added to be due at once has the execute
     * time 0, not the time it was added, so its lateness is unknown.
     */
    @Override
    public void handlerStarting(QueueId queue, long executeTime) {
        QueueMeters queueMeters = this.meters.of(queue);
        if (queueMeters != null && executeTime > 0) {
            // a start a little before the execute time (clocks differ by a few ms) counts as on time
            queueMeters.lateness().record(Math.max(0, this.clock.millis() - executeTime), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void handlerFinished(QueueId queue, long nanos, boolean succeeded) {
        QueueMeters queueMeters = this.meters.of(queue);
        Timer timer = (queueMeters != null) ? queueMeters.listener(succeeded) : null;
        if (timer != null) {
            timer.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void handlerTimedOut(QueueId queue) {
        QueueMeters queueMeters = this.meters.of(queue);
        if (queueMeters != null) {
            queueMeters.timeouts(false).increment();
        }
    }

    @Override
    public void handlerIgnoredTimeout(QueueId queue) {
        QueueMeters queueMeters = this.meters.of(queue);
        if (queueMeters != null) {
            queueMeters.timeouts(true).increment();
        }
    }

    @Override
    public void handlerPoolStarted(ThreadPoolExecutor pool) {
        // a pool of an earlier start may have left its meters, which would keep reading it
        handlerPoolStopped(pool);
        new ExecutorServiceMetrics(pool, HANDLER_POOL, Tags.empty()).bindTo(this.meters.registry());
    }

    @Override
    public void handlerPoolStopped(ThreadPoolExecutor pool) {
        MeterRegistry registry = this.meters.registry();
        List<Meter> poolMeters = registry.getMeters()
            .stream()
            .filter((meter) -> meter.getId().getName().startsWith("executor")
                    && HANDLER_POOL.equals(meter.getId().getTag("name")))
            .toList();
        poolMeters.forEach(registry::remove);
    }

}
