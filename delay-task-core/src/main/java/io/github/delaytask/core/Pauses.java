package io.github.delaytask.core;

import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delaytask.redis.QueueAdministration;

/**
 * Pauses and resumes queues on every instance, and what this instance knows of their pauses without asking Redis: a
 * task of a paused queue claimed ahead of a free thread goes back rather than start. Public for wiring.
 */
public final class Pauses {

    private final QueueAdministration queues;

    private final DueSignals signals;

    private final Clock clock;

    /**
     * Queues this instance knows to be paused: paused here, or found paused by a claim here, until resumed here or
     * found claimable by a claim.
     */
    private final Set<QueueId> paused = ConcurrentHashMap.newKeySet();

    /**
     * Counts the pauses and resumes of each queue made here, under {@link #paused}'s lock: a claim that began before
     * one says nothing of the queue after it.
     */
    private final Map<QueueId, Long> changes = new ConcurrentHashMap<>();

    /** @param clock the clock of execute times */
    public Pauses(QueueAdministration queues, DueSignals signals, Clock clock) {
        this.queues = queues;
        this.signals = signals;
        this.clock = clock;
    }

    /**
     * Stop claims of the queue on every instance: {@link QueueAdministration#pause}. Its tasks claimed here ahead of a
     * free thread go back rather than start; so do those of another instance once its next claim of the queue finds it
     * paused.
     */
    public boolean pause(QueueId queue) {
        boolean pausedNow = this.queues.pause(queue);
        synchronized (this.paused) {
            this.paused.add(queue);
            this.changes.merge(queue, 1L, Long::sum);
        }
        // the other instances claim from the queue at once, if they have room, and so hear of the pause before their
        // tasks claimed ahead start
        this.signals.announce(Map.of(queue, this.clock.millis()));
        return pausedNow;
    }

    /** Let the queue's tasks be claimed again: {@link QueueAdministration#resume}. */
    public boolean resume(QueueId queue) {
        boolean resumed = this.queues.resume(queue);
        synchronized (this.paused) {
            this.paused.remove(queue);
            this.changes.merge(queue, 1L, Long::sum);
        }
        if (resumed) {
            // dispatchers look at a paused queue only now and then; what fell due meanwhile is due now
            this.signals.scheduledEverywhere(queue, this.clock.millis());
        }
        return resumed;
    }

    /** Whether the queue is paused, as Redis says. */
    public boolean paused(QueueId queue) {
        return this.queues.paused(queue);
    }

    /**
     * Whether this instance knows the queue to be paused, without asking Redis: a claimed task of the queue that has
     * not started should go back.
     */
    public boolean knownPaused(QueueId queue) {
        return !this.paused.isEmpty() && this.paused.contains(queue);
    }

    /** Whether a pause or resume was ever made here: until then, no claim need count them. */
    boolean anyChanges() {
        return !this.changes.isEmpty();
    }

    /** How many pauses and resumes of the queue were made here: read as a claim begins, for {@link #found}. */
    long changes(QueueId queue) {
        return this.changes.isEmpty() ? 0 : this.changes.getOrDefault(queue, 0L);
    }

    /**
     * What a claim found of the queue's pause, unless a pause or resume made here since it began says otherwise.
     * @param changesAtStart the queue's {@link #changes} when the claim began
     */
    void found(QueueId queue, boolean pausedThen, long changesAtStart) {
        if (pausedThen == knownPaused(queue)) {
            return;
        }
        synchronized (this.paused) {
            if (changes(queue) == changesAtStart) {
                if (pausedThen) {
                    this.paused.add(queue);
                }
                else {
                    this.paused.remove(queue);
                }
            }
        }
    }

}
