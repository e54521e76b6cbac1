package io.github.delaytask.core;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;


/**
 * The queues this instance claims from: those a dispatcher here listens to, and every queue claimed from at all (by
 * {@code poll} too), which a recovery from Redis data loss marks loaded. Public for wiring.
 */
public final class ConsumedQueues {

    /** Every queue this instance has claimed from: those a recovery should mark loaded when Redis loses its data. */
    private final Set<QueueId> consumed = ConcurrentHashMap.newKeySet();

    /** Queues a dispatcher of this instance claims from, whatever their tasks. */
    private final Set<QueueId> listened = ConcurrentHashMap.newKeySet();

    /**
     * Queues this instance is about to claim from, such as those of its listeners: a recovery from Redis data loss
     * then marks them with the first queue that asks, rather than in a recovery of their own moments later.
     */
    public void consumes(Collection<QueueId> queues) {
        this.consumed.addAll(queues);
    }

    /**
     * Queues a dispatcher here now claims from, until {@link #stopsListening}: the refresh job leaves their due
     * tasks to it.
     */
    public void listens(Collection<QueueId> queues) {
        this.listened.addAll(queues);
        consumes(queues);
    }

    public void stopsListening(Collection<QueueId> queues) {
        this.listened.removeAll(queues);
    }

    /** The queues a dispatcher here claims from. */
    public Set<QueueId> listened() {
        return Set.copyOf(this.listened);
    }

    /** Every queue this instance claims from: those of {@link #consumes} and those claimed from, by {@code poll} too. */
    public Set<QueueId> consumed() {
        return Set.copyOf(this.consumed);
    }

}
