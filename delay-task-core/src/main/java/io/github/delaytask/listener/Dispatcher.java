package io.github.delaytask.listener;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.github.delaytask.core.Claims;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one claiming thread of an instance, for all its listeners: it knows when each queue next needs a claim (from
 * its own claims, the tasks this instance schedules and the wake-ups of the others), claims from every queue due in
 * one round, shares the free handler capacity between them ({@link Shares}), and hands the tasks won to the
 * handler threads. An idle queue costs a look every {@code idleLook}, not a claim every poll interval.
 */
final class Dispatcher implements Runnable {

    private static final Log logger = LogFactory.getLog(Dispatcher.class);

    /** Least time before a queue whose claim failed (Redis or the database unreachable) is claimed from again. */
    static final long ERROR_PAUSE_MILLIS = 1000;

    /** How soon a queue whose claim its server has not answered yet is looked at again, for that answer. */
    static final long LATE_LOOK_MILLIS = 100;

    /**
     * The least share of the free capacity a task type with a backlog is given when the capacity is short (at most
     * the batch size): few tasks to each of many queues would cost a Redis script per queue for a task or two.
     */
    static final int MIN_SHARE = 16;

    /**
     * A round that took fewer tasks than this, with more due at its end, while other instances take tasks this one
     * expected, is followed by the next no sooner than {@link #CONTENDED_ROUND_NANOS} after its start: instances that
     * race for the same stream of tasks would otherwise each claim a task or two per round, back to back, a database
     * statement each.
     */
    static final int SMALL_ROUND = 10;

    /** The least time from one contended small round to the next, per instance. */
    static final long CONTENDED_ROUND_NANOS = TimeUnit.MILLISECONDS.toNanos(8);

    /** How long a claim that lost the tasks it expected to another instance counts as contention. */
    static final long CONTENTION_MEMORY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<QueueId, ListenedQueue> queues = new LinkedHashMap<>();

    private final Claimer claimer;

    private final Capacity capacity;

    private final Starter starter;

    private final Waiter waiter;

    private final LongSupplier wallMillis;

    private final int batchSize;

    private final long pollIntervalMillis;

    private final long idleLookNanos;

    private final long leaseNanos;

    /** The earliest time a queue became due, or had room again, since the current round began. */
    private final AtomicLong wakeAt = new AtomicLong(Long.MAX_VALUE);

    /** The task type whose turn it was: a short capacity goes first to the next one (see {@link Shares}). */
    private long turn = Shares.FIRST_TURN;

    /** Tasks taken in Redis by the current round. */
    private int takenInRound;

    /** When a claim last found nothing where it expected a task, or {@link Long#MIN_VALUE}. */
    private long contendedAt = Long.MIN_VALUE;

    /**
     * The kind of failure of claims last logged at ERROR, and when: the same failure again within {@link
     * #ERROR_REPEAT_NANOS} is logged at DEBUG, as a Redis that is down would otherwise put a stack in the log every
     * second (the claims of queues with a cluster-wide limit, which wait for Redis).
     */
    private @Nullable String errorLogged;

    private long errorLoggedAt;

    private static final long ERROR_REPEAT_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Until {@link #stop()}: a dispatcher is made for one start of the listeners. */
    private volatile boolean running = true;

    private Thread thread;

    /**
     * @param idleLook longest time between looks at a queue that holds nothing due: found by other means (this
     * instance's schedules, wake-ups) otherwise
     * @param waiter the monotonic clock and the sleeps of the dispatcher
     * @param wallMillis the clock of execute times, epoch ms
     */
    Dispatcher(Claimer claimer, Capacity capacity, Starter starter, ListenerSettings settings,
            java.time.Duration idleLook, Waiter waiter, LongSupplier wallMillis) {
        this.claimer = claimer;
        this.capacity = capacity;
        this.starter = starter;
        this.waiter = waiter;
        this.wallMillis = wallMillis;
        this.batchSize = settings.batchSize();
        this.pollIntervalMillis = settings.pollInterval().toMillis();
        this.idleLookNanos = idleLook.toNanos();
        this.leaseNanos = settings.lease().toNanos();
    }

    /** Add a listened queue, claimed from at the first round. */
    void listen(QueueId queue, TaskRun run, int concurrency) {
        this.queues.put(queue, new ListenedQueue(queue, run, concurrency, this.waiter.now()));
    }

    List<QueueId> queues() {
        return List.copyOf(this.queues.keySet());
    }

    void start() {
        this.thread = new Thread(this, "delay-task-dispatcher");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Stop claiming; handlers already running go on. */
    void stop() {
        this.running = false;
        this.waiter.stop();
    }

    /** Wait until the loop has ended, up to the given time in nanos of {@link System#nanoTime()}. */
    void join(long deadlineNanos) throws InterruptedException {
        long millis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (this.thread != null && millis > 0) {
            this.thread.join(millis);
        }
    }

    /**
     * A task of a queue was scheduled, here or on another instance: claim from the queue when it is due, waking up
     * if that is before the current sleep ends.
     * @param executeTime when it is due, epoch ms
     */
    void scheduled(QueueId queue, long executeTime) {
        ListenedQueue listened = this.queues.get(queue);
        if (listened == null) {
            return;
        }
        long due = this.waiter.now()
                + TimeUnit.MILLISECONDS.toNanos(Math.max(0, executeTime - this.wallMillis.getAsLong()));
        listened.scheduled(due);
        wakeBy(due);
    }

    private void wakeBy(long due) {
        this.wakeAt.accumulateAndGet(due, Math::min);
        if (this.waiter.sleepsPast(due)) {
            this.waiter.wake();
        }
    }

    @Override
    public void run() {
        while (this.running) {
            long started = this.waiter.now();
            try {
                long next = round();
                this.waiter.sleepUntil(next, this.wakeAt::get);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            catch (Throwable ex) {
                logger.error("delay-task's dispatcher failed; trying again", ex);
                sleepQuietly(started + TimeUnit.MILLISECONDS.toNanos(ERROR_PAUSE_MILLIS));
            }
        }
    }

    /**
     * One round: claim from every queue that is due and may take more, as far as the capacity goes.
     * @return when the next round is due, in nanos of the waiter's clock
     */
    long round() throws InterruptedException {
        long started = this.waiter.now();
        this.takenInRound = 0;
        long next = claimRound();
        long now = this.waiter.now();
        if (next <= now && this.takenInRound < SMALL_ROUND && this.contendedAt != Long.MIN_VALUE
                && now - this.contendedAt < CONTENTION_MEMORY_NANOS) {
            // a wake-up or room freed meanwhile still ends the sleep at once
            return Math.max(next, started + CONTENDED_ROUND_NANOS);
        }
        return next;
    }

    private long claimRound() throws InterruptedException {
        this.wakeAt.set(Long.MAX_VALUE);
        long now = this.waiter.now();
        Map<QueueId, Integer> room = new LinkedHashMap<>();
        Map<QueueId, Integer> demand = new LinkedHashMap<>();
        int wanted = 0;
        for (ListenedQueue queue : this.queues.values()) {
            if (queue.dueAt() <= now && queue.hasRoom()) {
                int max = (queue.slots() == null) ? this.batchSize
                        : Math.min(this.batchSize, queue.slots().availablePermits());
                room.put(queue.queue(), max);
                demand.put(queue.queue(), queue.expected(max));
                wanted += max;
            }
        }
        if (room.isEmpty() || !this.running) {
            return nextRound();
        }
        int free = this.capacity.acquire(wanted, this.pollIntervalMillis);
        if (free == 0 || !this.running) {
            this.capacity.release(free);
            return this.waiter.now();
        }
        Map<QueueId, Integer> shares = Shares.split(room, demand, free, this.turn,
                Math.min(MIN_SHARE, this.batchSize));
        this.turn = Shares.nextTurn(room, shares, this.turn);
        Map<QueueId, Reservation> reserved = reserve(shares, free);
        Map<QueueId, Integer> counts = new LinkedHashMap<>();
        reserved.forEach((queue, reservation) -> {
            counts.put(queue, reservation.held());
            this.queues.get(queue).claiming();
        });
        claim(counts, reserved);
        return nextRound();
    }

    /** Take the slots of each share; what no queue could take goes back to the capacity. */
    private Map<QueueId, Reservation> reserve(Map<QueueId, Integer> shares, int free) {
        Map<QueueId, Reservation> reserved = new LinkedHashMap<>();
        int used = 0;
        for (Map.Entry<QueueId, Integer> share : shares.entrySet()) {
            ListenedQueue queue = this.queues.get(share.getKey());
            int taken = queue.takeSlots(share.getValue());
            if (taken > 0) {
                Runnable onRelease = (queue.slots() != null) ? this::roomFreed : () -> { };
                reserved.put(queue.queue(), new Reservation(this.capacity, queue.slots(), taken, onRelease));
                used += taken;
            }
        }
        this.capacity.release(free - used);
        return reserved;
    }

    private void claim(Map<QueueId, Integer> counts, Map<QueueId, Reservation> reserved) {
        // the lease runs from the claim in Redis: time spent in the claim itself (a slow database, a long GC pause)
        // counts against it
        long claimedAt = System.nanoTime();
        long startBy = claimedAt + this.leaseNanos / 10 * 9;
        long recordBy = claimedAt + this.leaseNanos;
        Claims.Batches result;
        try {
            result = this.claimer.claim(counts);
        }
        catch (Throwable ex) {
            // an Error too (a missing class, out of memory): its round's room kept would be lost for good
            reserved.values().forEach(Reservation::release);
            long retry = this.waiter.now() + TimeUnit.MILLISECONDS.toNanos(ERROR_PAUSE_MILLIS);
            counts.keySet().forEach((queue) -> this.queues.get(queue).claimed(retry));
            logger.error("Claiming from " + counts.keySet() + " failed; trying again", ex);
            return;
        }
        long now = this.waiter.now();
        List<QueueId> failed = new ArrayList<>();
        for (Map.Entry<QueueId, Integer> count : counts.entrySet()) {
            ListenedQueue queue = this.queues.get(count.getKey());
            Reservation reservation = reserved.get(queue.queue());
            Claims.Batch batch = result.batches().get(queue.queue());
            if (batch == null) {
                reservation.release();
                // a claim only late is looked at again soon, for its answer; one that failed after a pause
                boolean late = result.failed().get(queue.queue()) instanceof TaskQueues.ClaimNotAnswered;
                queue.claimed(now + TimeUnit.MILLISECONDS.toNanos(late ? LATE_LOOK_MILLIS : ERROR_PAUSE_MILLIS));
                failed.add(queue.queue());
                continue;
            }
            queue.took(count.getValue(), batch.taken());
            this.takenInRound += batch.taken();
            if (batch.taken() == 0 && queue.expectedTaskAtClaim() && !batch.paused()) {
                this.contendedAt = now;
            }
            reservation.release(reservation.held() - batch.tasks().size());
            for (StoredTask task : batch.tasks()) {
                this.starter.start(queue, task, reservation.takeOne(), startBy, recordBy);
            }
            queue.claimed(nextLook(now, count.getValue(), batch), expectsTask(count.getValue(), batch));
        }
        if (!failed.isEmpty()) {
            RuntimeException first = result.failed().values().iterator().next();
            if (result.failed().values().stream().allMatch(TaskQueues.ClaimNotAnswered.class::isInstance)) {
                // a server slower than the others, or one failing over: said once it fails, if it does
                logger.debug("Claims of " + failed + " wait for their server: " + first.getMessage());
            }
            else if (first.getClass().getName().equals(this.errorLogged)
                    && now - this.errorLoggedAt < ERROR_REPEAT_NANOS) {
                logger.debug("Claiming from " + failed + " failed again; trying again: " + first.getMessage());
            }
            else {
                logger.error("Claiming from " + failed + " failed; trying again (the same failure again within a "
                        + "minute is logged at DEBUG)", first);
                this.errorLogged = first.getClass().getName();
                this.errorLoggedAt = now;
            }
        }
    }

    /** When a queue needs its next claim, after one that asked for {@code asked} tasks. */
    private long nextLook(long now, int asked, Claims.Batch batch) {
        // a resume wakes every instance up (one whose wake-up is lost sees it at its next look); while paused, due
        // work still moves to the ready set when it falls due, where the queue's meters and the dashboard count it,
        // also that of a task scheduled before this claim, whose own look this claim took
        if (!batch.paused() && batch.taken() >= asked) {
            return now; // more may be due
        }
        if (batch.nextDueInMillis() >= 0) {
            return now + Math.min(this.idleLookNanos, TimeUnit.MILLISECONDS.toNanos(batch.nextDueInMillis()));
        }
        return now + this.idleLookNanos;
    }

    /** Whether a claim's next look is for a task known to be due then. */
    private boolean expectsTask(int asked, Claims.Batch batch) {
        if (batch.paused()) {
            return false;
        }
        long nextDue = batch.nextDueInMillis();
        return batch.taken() >= asked
                || (nextDue >= 0 && TimeUnit.MILLISECONDS.toNanos(nextDue) < this.idleLookNanos);
    }

    /** The earliest look due of the queues that may take more; those at their limit wait for room. */
    private long nextRound() {
        long next = Long.MAX_VALUE;
        for (ListenedQueue queue : this.queues.values()) {
            if (queue.hasRoom()) {
                next = Math.min(next, queue.dueAt());
            }
        }
        return next;
    }

    /** A listener at its limit may have room again: look at once. */
    private void roomFreed() {
        wakeBy(this.waiter.now());
    }

    private void sleepQuietly(long until) {
        try {
            this.waiter.sleepUntil(until, () -> Long.MAX_VALUE);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            this.running = false;
        }
    }

    /** Claims due tasks of many queues at once: {@link Claims#claimAll}. */
    @FunctionalInterface
    interface Claimer {

        Claims.Batches claim(Map<QueueId, Integer> counts);

    }

    /** Hands a claimed task to a handler thread. */
    @FunctionalInterface
    interface Starter {

        /**
         * @param reservation the room the task holds, to give back when it ends, whatever way
         * @param startBy the latest start, nanos of {@link System#nanoTime()}
         * @param recordBy when its lease runs out, nanos of {@link System#nanoTime()}
         */
        void start(ListenedQueue queue, StoredTask task, Reservation reservation, long startBy, long recordBy);

    }

}
