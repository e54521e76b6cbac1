package io.github.delaytask.listener;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delaytask.core.QueueId;
import org.jspecify.annotations.Nullable;

/**
 * What the dispatcher knows of one listened queue: when it next needs a claim, and the listener's own limit on the
 * tasks it holds. Times are nanos of the dispatcher's monotonic clock.
 */
final class ListenedQueue {

    private final QueueId queue;

    private final TaskRun run;

    /** The listener's own limit on the tasks it holds, claimed or running; null when it sets none. */
    private final @Nullable Semaphore slots;

    /** When the queue next needs a claim: its next task is due, a lease runs out, or it is time to look again. */
    private final AtomicLong dueAt;

    /**
     * The earliest task scheduled since the last claim began. A claim sees every task added before it, so only those
     * scheduled during it may be due sooner than what it says.
     */
    private final AtomicLong scheduledSinceClaim = new AtomicLong(Long.MAX_VALUE);

    /**
     * How many tasks the queue is thought to hold due: unbounded until a claim takes fewer than it asked for, then
     * what that claim took (at least one), as a drained queue holds only what fell due since.
     */
    private volatile int expected = Integer.MAX_VALUE;

    /**
     * Whether the next look is for a task known to be due then (from a claim, a schedule or a wake-up) rather than
     * a look now and then: a claim that finds nothing then lost the task to another instance.
     */
    private volatile boolean expectsTask;

    /** {@link #expectsTask} as the current claim began: a task scheduled during the claim may not be in it. */
    private boolean expectedAtClaim;

    /**
     * @param concurrency the listener's own limit; 0 for none
     * @param dueAt when it is first claimed from
     */
    ListenedQueue(QueueId queue, TaskRun run, int concurrency, long dueAt) {
        this.queue = queue;
        this.run = run;
        this.slots = (concurrency > 0) ? new Semaphore(concurrency) : null;
        this.dueAt = new AtomicLong(dueAt);
    }

    QueueId queue() {
        return this.queue;
    }

    TaskRun run() {
        return this.run;
    }

    @Nullable Semaphore slots() {
        return this.slots;
    }

    long dueAt() {
        return this.dueAt.get();
    }

    /** Whether the listener may take at least one more task. */
    boolean hasRoom() {
        return this.slots == null || this.slots.availablePermits() > 0;
    }

    /**
     * Take up to {@code max} of the listener's slots, at once.
     * @return how many it took; {@code max} for a listener without a limit
     */
    int takeSlots(int max) {
        if (this.slots == null) {
            return max;
        }
        int taken = 0;
        while (taken < max && this.slots.tryAcquire()) {
            taken++;
        }
        return taken;
    }

    /** A task of the queue was scheduled (here or elsewhere) to be due at the given time. */
    void scheduled(long due) {
        this.scheduledSinceClaim.accumulateAndGet(due, Math::min);
        if (this.dueAt.accumulateAndGet(due, Math::min) == due) {
            this.expectsTask = true; // the next look is for this task
        }
    }

    /** A claim is about to begin. */
    void claiming() {
        this.expectedAtClaim = this.expectsTask;
        this.scheduledSinceClaim.set(Long.MAX_VALUE);
    }

    /** After a claim: next look at the given time, or sooner if a task was scheduled meanwhile. */
    void claimed(long nextLook) {
        claimed(nextLook, false);
    }

    /**
     * After a claim: next look at the given time, or sooner if a task was scheduled meanwhile.
     * @param forTask whether a task is known to be due at that time
     */
    void claimed(long nextLook, boolean forTask) {
        long scheduled = this.scheduledSinceClaim.get();
        this.expectsTask = forTask || scheduled <= nextLook;
        this.dueAt.set(Math.min(nextLook, scheduled));
        // a task scheduled between the read and the set above would be overwritten: scheduled() records it in
        // scheduledSinceClaim before dueAt, so a second read sees it
        long again = this.scheduledSinceClaim.get();
        if (again < scheduled) {
            this.expectsTask = true;
            this.dueAt.accumulateAndGet(again, Math::min);
        }
    }

    /**
     * Whether a task was known to be due by the time the current claim began: a claim finding none lost it to
     * another instance.
     */
    boolean expectedTaskAtClaim() {
        return this.expectedAtClaim;
    }

    /** After a claim that asked for {@code asked} tasks and took {@code taken}. */
    void took(int asked, int taken) {
        this.expected = (taken >= asked) ? Integer.MAX_VALUE : Math.max(1, taken);
    }

    /** How many tasks the queue is thought to hold due, at most {@code room}. */
    int expected(int room) {
        return Math.min(room, this.expected);
    }

}
