package io.github.delaytask.core;

import java.time.Clock;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Pauses and resumes queues on every instance, and what this instance knows of their pauses without asking Redis: a
 * task of a paused queue claimed ahead of a free thread goes back rather than start. Public for wiring.
 */
public final class Pauses {

    private static final Log logger = LogFactory.getLog(Pauses.class);

    private final @Nullable QueuePauses queues;

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

    /** When the pauses were last read for the database's claims, nanos of {@link System#nanoTime()}. */
    private volatile long rereadAt;

    private volatile boolean rereadFailed;

    /**
     * @param queues where the pauses are kept, so that every instance sees them; null where they cannot be kept
     * @param clock the clock of execute times
     */
    public Pauses(@Nullable QueuePauses queues, DueSignals signals, Clock clock) {
        this.queues = queues;
        this.signals = signals;
        this.clock = clock;
    }

    /**
     * Stop claims of the queue on every instance: {@link QueuePauses#pause}. Its tasks claimed here ahead of a
     * free thread go back rather than start; so do those of another instance once its next claim of the queue finds it
     * paused.
     */
    public boolean pause(QueueId queue) {
        boolean pausedNow = kept().pause(queue);
        synchronized (this.paused) {
            this.paused.add(queue);
            this.changes.merge(queue, 1L, Long::sum);
        }
        // the other instances claim from the queue at once, if they have room, and so hear of the pause before their
        // tasks claimed ahead start
        this.signals.announce(Map.of(queue, this.clock.millis()));
        return pausedNow;
    }

    /** Let the queue's tasks be claimed again: {@link QueuePauses#resume}. */
    public boolean resume(QueueId queue) {
        boolean resumed = kept().resume(queue);
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

    /** Whether the queue is paused, as Redis (or without it, the database) says. */
    public boolean paused(QueueId queue) {
        return (this.queues != null) && this.queues.paused(queue);
    }

    private QueuePauses kept() {
        if (this.queues == null) {
            throw new UnsupportedOperationException("Queues cannot be paused here: there is nowhere to keep a pause "
                    + "that every instance sees");
        }
        return this.queues;
    }

    /**
     * Whether this instance knows the queue to be paused, without asking Redis: a claimed task of the queue that has
     * not started should go back.
     */
    public boolean knownPaused(QueueId queue) {
        return !this.paused.isEmpty() && this.paused.contains(queue);
    }

    /**
     * Without Redis, where no claim says whether its queue is paused: read every paused queue, at most once per
     * interval, and take it as a claim's finding for every queue it concerns (those about to be claimed, those paused
     * now, those known paused here), so that a queue whose claims never happen to make the read still hears of a
     * pause or resume made elsewhere. A read that fails keeps what is known; the next one tries again.
     * @param claimed the queues about to be claimed
     * @param intervalMillis how long a reading holds
     */
    void reread(Collection<QueueId> claimed, long intervalMillis) {
        long now = System.nanoTime();
        if (this.queues == null || (this.rereadAt != 0 && now - this.rereadAt < intervalMillis * 1_000_000)) {
            return;
        }
        this.rereadAt = now;
        Map<QueueId, Long> changesAtStart = new HashMap<>(this.changes);
        Set<QueueId> concerned = new HashSet<>(claimed);
        concerned.addAll(this.paused);
        Set<QueueId> paused;
        try {
            paused = this.queues.pausedQueues();
        }
        catch (RuntimeException ex) {
            if (!this.rereadFailed) {
                this.rereadFailed = true;
                logger.warn("Could not read which queues are paused; the pauses known here hold until a read "
                        + "succeeds", ex);
            }
            return;
        }
        this.rereadFailed = false;
        concerned.addAll(paused);
        concerned.forEach((queue) -> found(queue, paused.contains(queue), changesAtStart.getOrDefault(queue, 0L)));
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
