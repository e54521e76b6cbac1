package io.github.delaytask.metrics;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Reads what each queue holds, for the gauges, on a thread of its own ({@value #THREAD_NAME}) started and stopped
 * with the context. Public for wiring.
 * <p>
 * Every {@link #INTERVAL} it reads each queue in one script call (the queues in use, those this instance listens to
 * and those that already have meters) and counts the dead tasks of every queue in one query. Gauges show what the
 * last sample read, so a scrape never reaches Redis or the database. A failed sample is logged and the gauges keep
 * their values until the next one.
 */
public class QueueStatsSampler implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(QueueStatsSampler.class);

    /** Time between samples: every instance samples every queue, so this bounds their cost. */
    public static final Duration INTERVAL = Duration.ofSeconds(30);

    static final String THREAD_NAME = "delay-task-metrics";

    private final DelayTaskMeters meters;

    private final QueueAdministration queues;

    private final TaskStore store;

    private final Supplier<Collection<QueueId>> listenedQueues;

    /** Guards starting and stopping, apart from the samples, which a stop waits for. */
    private final Object lifecycleMonitor = new Object();

    private @Nullable ScheduledExecutorService executor;

    private volatile boolean running;

    /**
     * @param meters the meters of each queue
     * @param queues the Redis queues
     * @param store the database, for the dead tasks
     * @param listenedQueues the queues this instance has listeners for
     */
    public QueueStatsSampler(DelayTaskMeters meters, QueueAdministration queues, TaskStore store,
            Supplier<Collection<QueueId>> listenedQueues) {
        this.meters = meters;
        this.queues = queues;
        this.store = store;
        this.listenedQueues = listenedQueues;
    }

    @Override
    public void start() {
        synchronized (this.lifecycleMonitor) {
            if (this.running) {
                return;
            }
            ScheduledExecutorService executor = new ScheduledThreadPoolExecutor(1, (job) -> {
                Thread thread = new Thread(job, THREAD_NAME);
                thread.setDaemon(true);
                return thread;
            });
            executor.scheduleWithFixedDelay(this::sampleQuietly, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
            this.executor = executor;
            this.running = true;
        }
    }

    @Override
    public void stop() {
        synchronized (this.lifecycleMonitor) {
            ScheduledExecutorService executor = this.executor;
            if (!this.running || executor == null) {
                return;
            }
            this.running = false;
            this.executor = null;
            executor.shutdownNow();
            try {
                // a sample reads Redis, whose calls end when interrupted; one that does not is left on its daemon
                executor.awaitTermination(1, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    private void sampleQuietly() {
        try {
            sampleNow();
        }
        catch (Throwable ex) {
            logger.warn("Could not sample the delay-task queues for metrics; trying again in " + INTERVAL, ex);
        }
    }

    /**
     * Read every queue and count the dead tasks now, rather than at the next interval: for tests.
     */
    public synchronized void sampleNow() {
        Set<QueueId> seen = new LinkedHashSet<>(this.meters.queues());
        Map<QueueId, Long> dead = countDead();
        if (dead != null) {
            seen.addAll(dead.keySet());
            for (QueueId queue : seen) {
                QueueMeters queueMeters = this.meters.of(queue);
                if (queueMeters != null) {
                    queueMeters.deadTasks(dead.getOrDefault(queue, 0L));
                }
            }
        }
        seen.addAll(this.queues.queues());
        seen.addAll(this.listenedQueues.get());
        for (QueueId queue : seen) {
            QueueMeters queueMeters = this.meters.of(queue);
            if (queueMeters != null) {
                queueMeters.sampled(this.queues.stats(queue));
            }
        }
    }

    /** The dead tasks of each queue, or null when the database is out of reach: Redis is still worth reading. */
    private @Nullable Map<QueueId, Long> countDead() {
        try {
            return this.store.countDeadByQueue();
        }
        catch (RuntimeException ex) {
            logger.warn("Could not count the dead delay-task tasks for metrics; trying again in " + INTERVAL, ex);
            return null;
        }
    }

}
