package io.github.delaytask.benchmark.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import io.github.delaytask.benchmark.system.BenchTask;
import io.github.delaytask.benchmark.system.Instance;

/**
 * Threads that add a number of tasks to an instance as fast as they can, one at a time or in batches. The first
 * failure stops them all and is thrown.
 */
final class Producers {

    private Producers() {
    }

    /**
     * @param task the task of each index, from 0
     * @return the time from the first add to the last one's return
     */
    static Duration singles(Instance instance, int count, int threads, IntFunction<BenchTask> task) throws Exception {
        return run(count, threads, 1, (from, to) -> instance.add(task.apply(from)));
    }

    static Duration batches(Instance instance, int count, int threads, IntFunction<BenchTask> task) throws Exception {
        return run(count, threads, Size.BATCH_SIZE, (from, to) -> {
            List<BenchTask> batch = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                batch.add(task.apply(i));
            }
            instance.addBatch(batch);
        });
    }

    private static Duration run(int count, int threads, int chunk, Chunk work) throws Exception {
        AtomicInteger next = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> producers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                producers.add(pool.submit(() -> {
                    start.await();
                    int from;
                    while ((from = next.getAndAdd(chunk)) < count) {
                        try {
                            work.add(from, Math.min(count, from + chunk));
                        }
                        catch (RuntimeException ex) {
                            next.set(count);
                            throw ex;
                        }
                    }
                    return null;
                }));
            }
            long begin = System.nanoTime();
            start.countDown();
            for (Future<?> producer : producers) {
                producer.get();
            }
            return Duration.ofNanos(System.nanoTime() - begin);
        }
        catch (ExecutionException ex) {
            throw (ex.getCause() instanceof Exception cause) ? cause : ex;
        }
        finally {
            pool.shutdownNow();
        }
    }

    static double perSecond(long count, Duration elapsed) {
        return count * 1e9 / Math.max(1, elapsed.toNanos());
    }

    @FunctionalInterface
    private interface Chunk {

        void add(int from, int to);

    }

}
