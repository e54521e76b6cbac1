package io.github.delaytask.listener;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * Room held for tasks of one queue: permits of the shared capacity and, for a listener with a limit of its own, its
 * slots. It owns both, so that every path a task takes (run, handed back, never started because the pool shut down,
 * a claim that failed) gives back exactly what it held, and gives it back once.
 */
final class Reservation {

    private final Capacity capacity;

    private final @Nullable Semaphore slots;

    private final Runnable onRelease;

    private final AtomicInteger held;

    /**
     * @param held how much is held already, of the capacity and of the slots alike
     * @param onRelease told each time room is given back, so that a dispatcher waiting for it looks again
     */
    Reservation(Capacity capacity, @Nullable Semaphore slots, int held, Runnable onRelease) {
        this.capacity = capacity;
        this.slots = slots;
        this.onRelease = onRelease;
        this.held = new AtomicInteger(held);
    }

    int held() {
        return this.held.get();
    }

    /**
     * Move the room of one task into a reservation of its own.
     * @throws IllegalStateException if nothing is held
     */
    Reservation takeOne() {
        if (this.held.getAndUpdate((count) -> (count > 0) ? count - 1 : count) == 0) {
            throw new IllegalStateException("Nothing reserved");
        }
        return new Reservation(this.capacity, this.slots, 1, this.onRelease);
    }

    /** Give back all that is still held; later calls give back nothing. */
    void release() {
        release(Integer.MAX_VALUE);
    }

    /** Give back up to {@code count} of what is held. */
    void release(int count) {
        int before = this.held.getAndUpdate((held) -> held - Math.min(held, count));
        int released = Math.min(before, count);
        if (released == 0) {
            return;
        }
        if (this.slots != null) {
            this.slots.release(released);
        }
        this.capacity.release(released);
        this.onRelease.run();
    }

}
