package io.github.delaytask.core;

import java.util.Set;

import io.github.delaytask.redis.QueueStats;

/**
 * The queues in use, their pauses, and what Redis holds of each: what operators see of the queues beside the
 * database's counts. Over Redis, its registry of queues and sorted sets; without Redis, the paused queues of the
 * database, and nothing in Redis. Public for wiring.
 */
public interface QueueRegistry extends QueuePauses {

    /** Every queue known to be in use, paused ones included. */
    Set<QueueId> queues();

    /** What the queue holds in Redis; {@link QueueStats#EMPTY} without Redis. */
    QueueStats stats(QueueId queue);

}
