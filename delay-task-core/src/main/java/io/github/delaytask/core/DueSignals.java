package io.github.delaytask.core;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delaytask.redis.WakeUps;
import org.jspecify.annotations.Nullable;

/**
 * Tells consumers that tasks were scheduled: this instance's own, at once, and the other instances', through the
 * wake-ups, so that a dispatcher sleeping past a task's time wakes up. The one owner of the wake-up bus. Public for
 * wiring.
 */
public final class DueSignals {

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    private final Clock clock;

    private final ConsumedQueues queues;

    private final @Nullable WakeUps wakeUps;

    /** Whether a hand-off of stored tasks to Redis was given up since the feed last looked. */
    private final AtomicBoolean handOffsDropped = new AtomicBoolean();

    /**
     * @param clock the clock of execute times
     * @param queues the queues this instance claims from, each told of when the wake-ups (re)subscribe
     * @param wakeUps the wake-ups that tell other instances of tasks scheduled here and this instance's listeners of
     * tasks scheduled elsewhere; null for none
     */
    public DueSignals(Clock clock, ConsumedQueues queues, @Nullable WakeUps wakeUps) {
        this.clock = clock;
        this.queues = queues;
        this.wakeUps = wakeUps;
    }

    /**
     * Stored tasks may be missing from Redis: a hand-off of them was given up (too many waited for Redis, an
     * unexpected failure, a transaction without synchronization that committed too late to be followed). The feed's
     * next pass on this instance reads the whole window.
     */
    public void handOffsDropped() {
        this.handOffsDropped.set(true);
    }

    /**
     * Whether hand-offs were given up since the last call: the caller reads the whole window, or calls
     * {@link #handOffsDropped()} again should it fail to.
     */
    public boolean takeDroppedHandOffs() {
        return this.handOffsDropped.getAndSet(false);
    }

    /** Tell local consumers that a task was scheduled, so that one sleeping past its execute time wakes up. */
    public void scheduled(QueueId queue, long executeTime) {
        for (Listener listener : this.listeners) {
            listener.scheduled(queue, executeTime);
        }
    }

    /**
     * Tell the other instances' consumers, through the wake-ups, of the earliest task scheduled here in each queue.
     * Never throws.
     */
    public void announce(Map<QueueId, Long> earliest) {
        if (this.wakeUps != null) {
            this.wakeUps.publish(earliest);
        }
    }

    /** A task scheduled here, of which this instance's consumers and, through the wake-ups, the others hear. */
    void scheduledEverywhere(QueueId queue, long executeTime) {
        scheduled(queue, executeTime);
        announce(Map.of(queue, executeTime));
    }

    /**
     * Tasks were brought into Redis from the database (the reload, a recovery): tell the consumers here and, through
     * the wake-ups, everywhere, of the earliest of each queue. Never throws for the wake-ups.
     */
    public void reloaded(Map<QueueId, Long> earliest) {
        earliest.forEach(this::scheduled);
        announce(earliest);
    }

    /** Hear of tasks scheduled here and, through the wake-ups, elsewhere; the first listener subscribes to them. */
    public synchronized void addListener(Listener listener) {
        this.listeners.add(listener);
        if (this.wakeUps != null && this.listeners.size() == 1) {
            this.wakeUps.listen(new WakeUps.Listener() {

                @Override
                public void scheduled(QueueId queue, long executeTime) {
                    DueSignals.this.scheduled(queue, executeTime);
                }

                @Override
                public void subscribed() {
                    // tasks added elsewhere while this instance was not subscribed woke nobody here
                    long now = DueSignals.this.clock.millis();
                    for (QueueId queue : DueSignals.this.queues.listened()) {
                        DueSignals.this.scheduled(queue, now);
                    }
                }

            });
        }
    }

    public synchronized void removeListener(Listener listener) {
        this.listeners.remove(listener);
        if (this.wakeUps != null && this.listeners.isEmpty()) {
            this.wakeUps.stopListening();
        }
    }

    /**
     * Hears of tasks scheduled by this instance and, with wake-ups, by the others.
     */
    @FunctionalInterface
    public interface Listener {

        void scheduled(QueueId queue, long executeTime);

    }

}
