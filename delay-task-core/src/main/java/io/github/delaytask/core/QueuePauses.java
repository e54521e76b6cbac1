package io.github.delaytask.core;

import java.util.Set;

/**
 * Where the pause of a queue is kept, so that every instance sees it: in Redis, which every claim reads, or without
 * Redis in the database. Public for wiring.
 */
public interface QueuePauses {

    /**
     * Stop every instance from claiming the queue's tasks, until {@link #resume}.
     * @return whether this call paused it; {@code false} if it was paused already
     */
    boolean pause(QueueId queue);

    /**
     * Let the queue's tasks be claimed again.
     * @return whether this call resumed it; {@code false} if it was not paused
     */
    boolean resume(QueueId queue);

    /** Whether the queue is paused. */
    boolean paused(QueueId queue);

    /** Every queue paused now: what the database's claims read without Redis, once a poll interval at most. */
    Set<QueueId> pausedQueues();

}
