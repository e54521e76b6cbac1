package io.github.delaytask.listener;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Sleeps until a deadline, an earlier deadline that may move closer meanwhile, or a stop, by the monotonic clock: a
 * step of the wall clock (NTP, a resumed virtual machine) must neither stall a dispatcher nor wake it early.
 */
final class Waiter {

    private final Object signal = new Object();

    private final LongSupplier nanoTime;

    /** Deadline of the current sleep, in nanos of {@link #now()}, or {@link Long#MAX_VALUE}. */
    private volatile long sleepingUntil = Long.MAX_VALUE;

    private volatile boolean stopped;

    Waiter() {
        this(System::nanoTime);
    }

    Waiter(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** The monotonic clock of this waiter, in nanos. */
    long now() {
        return this.nanoTime.getAsLong();
    }

    /**
     * Sleep for up to {@code millis}, less if {@code earlierDeadline} (nanos of {@link #now()}, read again whenever
     * {@link #wake()} is called) comes first, and not at all once stopped.
     */
    void sleep(long millis, LongSupplier earlierDeadline) throws InterruptedException {
        if (millis <= 0) {
            return;
        }
        synchronized (this.signal) {
            long deadline = now() + TimeUnit.MILLISECONDS.toNanos(millis);
            this.sleepingUntil = deadline;
            try {
                while (!this.stopped) {
                    long remaining = Math.min(deadline, earlierDeadline.getAsLong()) - now();
                    if (remaining <= 0) {
                        return;
                    }
                    TimeUnit.NANOSECONDS.timedWait(this.signal, remaining);
                }
            }
            finally {
                this.sleepingUntil = Long.MAX_VALUE;
            }
        }
    }

    /**
     * Sleep until {@code deadline} (nanos of {@link #now()}), less if {@code earlierDeadline} comes first, and not at
     * all once stopped.
     */
    void sleepUntil(long deadline, LongSupplier earlierDeadline) throws InterruptedException {
        synchronized (this.signal) {
            this.sleepingUntil = deadline;
            try {
                while (!this.stopped) {
                    long target = Math.min(deadline, earlierDeadline.getAsLong());
                    if (target == Long.MAX_VALUE) {
                        // no deadline at all: until woken (the difference to the clock could overflow)
                        this.signal.wait();
                        continue;
                    }
                    long remaining = target - now();
                    if (remaining <= 0) {
                        return;
                    }
                    TimeUnit.NANOSECONDS.timedWait(this.signal, remaining);
                }
            }
            finally {
                this.sleepingUntil = Long.MAX_VALUE;
            }
        }
    }

    /** Whether a sleep is under way that would end after the given time (nanos of {@link #now()}). */
    boolean sleepsPast(long nanos) {
        return nanos < this.sleepingUntil;
    }

    /** Have the current sleep look at its earlier deadline again. */
    void wake() {
        synchronized (this.signal) {
            this.signal.notifyAll();
        }
    }

    /** End the current sleep and every later one. */
    void stop() {
        this.stopped = true;
        wake();
    }

}
