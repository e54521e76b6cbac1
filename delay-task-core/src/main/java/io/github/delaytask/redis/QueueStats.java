package io.github.delaytask.redis;

/**
 * What one queue holds in Redis, by the Redis server's clock. Public for metrics.
 * @param future ids not due yet
 * @param ready ids due and not claimed, those due by now that no claim has moved out of the future set included
 * @param inFlight ids claimed by a consumer, under a lease
 * @param oldestDueWaitMillis how long the oldest due id not claimed has waited past its execute time, in ms; 0 if
 * none is due. Tasks added to be due at once are left out: their execute time is 0, not the time they were added
 */
public record QueueStats(long future, long ready, long inFlight, long oldestDueWaitMillis) {

    /** An empty queue. */
    public static final QueueStats EMPTY = new QueueStats(0, 0, 0, 0);

}
