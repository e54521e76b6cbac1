package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.github.delaytask.benchmark.system.TaskKind;
import io.github.delaytask.benchmark.system.TaskSink;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The sink of every handler: counts handler calls by kind with the first and last call's time, and, while asked
 * to, the lateness of each task (handler start minus execute time).
 */
final class HandledTasks implements TaskSink {

    private final Calls[] calls = { new Calls(), new Calls() };

    private final LongAdder early = new LongAdder();

    private volatile Recorder lateness;

    @Override
    public void handled(TaskKind kind, long executeTimeMillis) {
        long nanos = System.nanoTime();
        Recorder recorder = this.lateness;
        if (recorder != null && kind == TaskKind.TASK) {
            Instant now = Instant.now();
            long micros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000 - executeTimeMillis * 1000;
            if (micros < -1000) {
                this.early.increment();
            }
            recorder.recordValue(Math.max(0, micros));
        }
        this.calls[kind.ordinal()].record(nanos);
    }

    /** Start recording lateness, in microseconds. */
    void recordLateness() {
        this.lateness = new Recorder(3);
    }

    /** The lateness recorded since {@link #recordLateness()}, in microseconds. */
    Histogram lateness() {
        return this.lateness.getIntervalHistogram();
    }

    /** Handlers that started more than a millisecond before their task's execute time. */
    long early() {
        return this.early.sum();
    }

    long count(TaskKind kind) {
        return this.calls[kind.ordinal()].count.get();
    }

    /** {@link System#nanoTime()} of the first handler call of a kind since the last reset. */
    long first(TaskKind kind) {
        return this.calls[kind.ordinal()].first.get();
    }

    /** {@link System#nanoTime()} of the last handler call of a kind so far. */
    long last(TaskKind kind) {
        return this.calls[kind.ordinal()].last.get();
    }

    /**
     * Wait until handlers of a kind ran the given number of times.
     * @return whether they did in time
     */
    boolean await(TaskKind kind, long count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count(kind) < count) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    /** Forget everything; only while no handler runs. */
    void reset() {
        for (Calls kind : this.calls) {
            kind.count.set(0);
            kind.first.set(Long.MAX_VALUE);
            kind.last.set(Long.MIN_VALUE);
        }
        this.early.reset();
        this.lateness = null;
    }

    private static final class Calls {

        private final AtomicLong count = new AtomicLong();

        private final AtomicLong first = new AtomicLong(Long.MAX_VALUE);

        private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);

        void record(long nanos) {
            this.count.incrementAndGet();
            this.first.accumulateAndGet(nanos, Math::min);
            this.last.accumulateAndGet(nanos, Math::max);
        }

    }

}
