package io.github.delaytask.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.springframework.dao.QueryTimeoutException;

/**
 * The task path's port to the queues of tasks due soon, by id: new and changed tasks go in, claims take the due ones
 * out under a lease, and each run's outcome takes its task out of flight. Public for wiring.
 * <p>
 * The queues hold ids and times only. The database holds every task and decides each change of state, with its
 * version as the fence, so the queues may hold an id the database no longer has live (it is dropped when claimed)
 * and may lose what they hold (the reload brings it back). Time is the queues' own clock ({@link Claim#redisTime()}),
 * so that instances whose clocks differ agree on what is due.
 * <p>
 * {@code io.github.delaytask.redis.RedisTaskQueues} is the implementation over Redis. Administration (pause,
 * statistics) and recovery markers have ports of their own. {@code AbstractTaskQueuesContractTests} says what every
 * implementation does, and an in-memory twin of the tests passes it as well.
 */
public interface TaskQueues {

    /**
     * The queues without Redis ({@code delay-task.redis.enabled=false}): they hold nothing, and every claim goes to the
     * database ({@link io.github.delaytask.core.Claims#databaseOnly}).
     */
    static TaskQueues none() {
        return new NoTaskQueues();
    }

    /**
     * Make a task due at the given time, replacing any earlier time, and take it out of the ready set: an add, or a
     * reschedule, whose time is the new truth.
     * @param queue the task's queue
     * @param taskId the task
     * @param executeTime when it is due, epoch ms
     */
    void schedule(QueueId queue, long taskId, long executeTime);

    /**
     * Make new tasks of one queue due at their times. An id the queue holds already keeps its time: it was put there
     * by a later change (a reschedule on another instance that reached the queues first).
     * @param queue the queue
     * @param executeTimes execute time by task id
     */
    void add(QueueId queue, Map<Long, Long> executeTimes);

    /**
     * Make new tasks of many queues due at their times, as {@link #add} does, and record the queues in use.
     * @param executeTimes execute time by task id, by queue
     * @param alsoRegister queues to record in use as well (changes of tasks written to them)
     * @param chunk at most this many ids in one write
     * @param wait how long to wait for the slowest server at most
     * @return the queues not written, whose server failed or had not answered in time; writing them again does not
     * mind that the write may still take effect
     * @throws RuntimeException when every server of a queue refused: the queues are out of reach
     */
    Set<QueueId> addAll(Map<QueueId, Map<Long, Long>> executeTimes, Collection<QueueId> alsoRegister, int chunk,
            Duration wait);

    /**
     * Bring tasks read from the database into a queue, leaving alone those a consumer holds or that are queued as
     * due already.
     * @param queue the queue
     * @param executeTimes execute time by task id
     * @return the earliest execute time of the tasks the queue did not hold at that time (new to it, or at another
     * time), or -1 if it held them all: only those need telling the consumers of
     */
    long reload(QueueId queue, Map<Long, Long> executeTimes);

    /**
     * Move due tasks into the ready set and claim up to {@code max} of them under a lease.
     * @param queue the queue
     * @param max how many tasks to claim; 0 only moves due tasks
     * @param lease how long the claimed tasks stay with the caller before they are due again
     * @return the claimed tasks, the queues' time, whether they held the queue's loaded marker and whether the queue
     * is paused (nothing is claimed then)
     */
    default Claim claim(QueueId queue, int max, Duration lease) {
        return claim(queue, max, lease, true);
    }

    /**
     * {@link #claim(QueueId, int, Duration)}, where a queue that holds nothing may answer without the queues' time
     * ({@link Claim#redisTime()} is then -1) unless {@code timed}.
     */
    Claim claim(QueueId queue, int max, Duration lease, boolean timed);

    /**
     * Claim from many queues at once.
     * @param counts how many tasks to claim from each queue; 0 only moves due tasks
     * @param lease how long the claimed tasks stay with the caller before they are due again
     * @param timed the queues whose claim must read the queues' time even when they hold nothing
     * @return what each queue's claim took, or why it failed ({@link ClaimNotAnswered} for one still to be answered)
     */
    Claims claimAll(Map<QueueId, Integer> counts, Duration lease, Set<QueueId> timed);

    /**
     * Hand out no more than {@code permits} tasks of the queue within any {@code period}, across every consumer of
     * every instance (a listener's cluster-wide rate).
     * @param permits the most tasks claimed within a period; 0 for no such rate
     */
    void limitRate(QueueId queue, int permits, Duration period);

    /**
     * Hand out no more than {@code limit} tasks of the queue at once, across every consumer of every instance (a
     * listener's cluster-wide concurrency).
     * @param limit the most tasks in flight; 0 for no such limit
     */
    void limitInFlight(QueueId queue, int limit);

    /**
     * Extend the leases of tasks in flight whose handlers still run here. An id no longer in flight is left alone.
     * @param taskIds the ids of each queue
     * @param lease the new length of their leases, from the queues' time now
     * @return the earliest queues' time the new leases count from
     */
    long extendLeases(Map<QueueId, ? extends Collection<Long>> taskIds, Duration lease);

    /** Forget a task that a consumer finished: the database no longer needs the queues to remember it. */
    default void acknowledge(QueueId queue, long taskId) {
        acknowledgeAll(queue, List.of(taskId));
    }

    /**
     * Forget a finished run of a task, unless a later run holds it.
     * @param before a lease deadline later than any the finished run held, and earlier than any a later run holds
     */
    void forgetRun(QueueId queue, long taskId, long before);

    /** Forget the finished tasks of many queues at once. */
    default void acknowledgeAll(Map<QueueId, ? extends Collection<Long>> taskIds) {
        taskIds.forEach(this::acknowledgeAll);
    }

    /** Forget many finished tasks of one queue. */
    void acknowledgeAll(QueueId queue, Collection<Long> taskIds);

    /** Take a task out of flight and make it due at the given time. */
    void defer(QueueId queue, long taskId, long executeTime);

    /**
     * Take a task a claim lost to the database out of flight and make it due at the given time, unless the queue
     * holds it due sooner already (a retry recorded meanwhile).
     */
    void settle(QueueId queue, long taskId, long executeTime);

    /**
     * The tasks of a queue in flight whose leases run out after a time, with their lease deadlines, earliest first.
     * @param after epoch ms (the queues' time)
     * @param limit at most this many
     */
    Map<Long, Long> inFlightAfter(QueueId queue, long after, int limit);

    /**
     * Take tasks out of flight and make them due, each only while it still has the lease deadline read; a sooner
     * time the queue holds already wins.
     * @param tasks for each task, its lease deadline read and when it is due, epoch ms
     * @return how many were taken out of flight
     */
    long releaseOrphans(QueueId queue, Map<Long, long[]> tasks);

    /** Drop a cancelled (or rescheduled beyond the window) task from the tasks waiting and due. */
    void remove(QueueId queue, long taskId);

    /**
     * Make changes of tasks already stored ({@link #schedule}, {@link #remove}) all at once; the changes of one queue
     * take effect in their order.
     * @param wait how long to wait for the slowest server at most, even when none answers
     * @return the changes not made, in their order: of each queue, those from the first whose server failed or had
     * not answered in time on
     */
    List<Change> changeAll(List<Change> changes, Duration wait);

    /** Whether the queues are the task store's own, shared with no other application. */
    boolean keysOfOneStore();

    /** Where the queues are kept, for messages: the prefix of the Redis keys. */
    String keyPrefix();

    /** Record that queues are in use: the writers of tasks do so for every batch they write. */
    void register(Collection<QueueId> queues);

    /**
     * What the claims of many queues took.
     * @param claimed the claim of each queue whose claim ran
     * @param failed the error of each queue whose claim did not run, or whose answer was lost
     * @param late the queues among {@code claimed} whose claim is the answer, come late, of an earlier round's
     * ({@link ClaimNotAnswered}): its time ({@link Claim#redisTime()}) is that of the earlier round
     */
    record Claims(Map<QueueId, Claim> claimed, Map<QueueId, RuntimeException> failed, Set<QueueId> late) {

        /** Claims none of which came late. */
        public Claims(Map<QueueId, Claim> claimed, Map<QueueId, RuntimeException> failed) {
            this(claimed, failed, Set.of());
        }

    }

    /**
     * A change of a task already stored, in its queue.
     * @param executeTime when it is due, epoch ms; {@link #REMOVE} to take it out of the tasks waiting and due (a
     * cancel, a reschedule beyond the preload window)
     */
    record Change(QueueId queue, long taskId, long executeTime) {

        /** The execute time of a removal. */
        public static final long REMOVE = Long.MIN_VALUE;

        /** Whether it takes the task out. */
        public boolean removes() {
            return this.executeTime == REMOVE;
        }

    }

    /**
     * The claim of a queue its server has not answered yet: on a Cluster, a master that stalls or failed, though the
     * other queues' servers have answered; on one server, one that has not answered for the claim timeout. The queue
     * is not claimed in this round, and a later round takes the answer.
     */
    final class ClaimNotAnswered extends QueryTimeoutException {

        private final long sentAt;

        /**
         * @param queue the queue claimed
         * @param sentAt when its claim was sent, nanos of {@link System#nanoTime()}
         */
        public ClaimNotAnswered(QueueId queue, long sentAt) {
            super("Redis has not answered the claim of " + queue + " for "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt) + " ms; a later round takes its "
                    + "answer");
            this.sentAt = sentAt;
        }

        /** How long the claim has waited for its answer so far. */
        public long unansweredMillis() {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.sentAt);
        }

    }

}
