package io.github.delaytask.listener;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delaytask.redis.QueueId;
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
        this.dueAt.accumulateAndGet(due, Math::min);
    }

    /** A claim is about to begin. */
    void claiming() {
        this.scheduledSinceClaim.set(Long.MAX_VALUE);
    }

    /** After a claim: next look at the given time, or sooner if a task was scheduled meanwhile. */
    void claimed(long nextLook) {
        this.dueAt.set(Math.min(nextLook, this.scheduledSinceClaim.get()));
    }

}
