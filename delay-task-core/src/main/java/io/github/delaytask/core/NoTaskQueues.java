package io.github.delaytask.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The queues' port without Redis: the database holds every task and its claim finds the due ones itself
 * ({@link Claims#databaseOnly}), so there is nothing to hold in queues. Writes change nothing, and claims find
 * nothing: every claim of the task path goes to the database instead.
 */
final class NoTaskQueues implements TaskQueues {

    @Override
    public void schedule(QueueId queue, long taskId, long executeTime) {
    }

    @Override
    public void add(QueueId queue, Map<Long, Long> executeTimes) {
    }

    @Override
    public Set<QueueId> addAll(Map<QueueId, Map<Long, Long>> executeTimes, Collection<QueueId> alsoRegister, int chunk,
            Duration wait) {
        return Set.of();
    }

    @Override
    public long reload(QueueId queue, Map<Long, Long> executeTimes) {
        return -1;
    }

    @Override
    public Claim claim(QueueId queue, int max, Duration lease, boolean timed) {
        throw withoutQueues();
    }

    @Override
    public Claims claimAll(Map<QueueId, Integer> counts, Duration lease, Set<QueueId> timed) {
        throw withoutQueues();
    }

    @Override
    public void limitRate(QueueId queue, int permits, Duration period) {
        if (permits > 0) {
            throw withoutQueues();
        }
    }

    @Override
    public void limitInFlight(QueueId queue, int limit) {
        if (limit > 0) {
            throw withoutQueues();
        }
    }

    @Override
    public long extendLeases(Map<QueueId, ? extends Collection<Long>> taskIds, Duration lease) {
        // the database's leases fence the tasks, and were extended first
        return -1;
    }

    @Override
    public void forgetRun(QueueId queue, long taskId, long before) {
    }

    @Override
    public void acknowledgeAll(QueueId queue, Collection<Long> taskIds) {
    }

    @Override
    public void defer(QueueId queue, long taskId, long executeTime) {
    }

    @Override
    public void settle(QueueId queue, long taskId, long executeTime) {
    }

    @Override
    public Map<Long, Long> inFlightAfter(QueueId queue, long after, int limit) {
        return Map.of();
    }

    @Override
    public long releaseOrphans(QueueId queue, Map<Long, long[]> tasks) {
        return 0;
    }

    @Override
    public void remove(QueueId queue, long taskId) {
    }

    @Override
    public List<Change> changeAll(List<Change> changes, Duration wait) {
        return List.of();
    }

    @Override
    public boolean keysOfOneStore() {
        return true;
    }

    @Override
    public String keyPrefix() {
        return "(none: delay-task.redis.enabled=false)";
    }

    @Override
    public void register(Collection<QueueId> queues) {
    }

    /** A claim in queues that do not exist: a part of the starter that should have asked the database. */
    private static IllegalStateException withoutQueues() {
        return new IllegalStateException("delay-task runs without Redis (delay-task.redis.enabled=false): its "
                + "tasks are claimed from the database, and its queues hold nothing");
    }

}
