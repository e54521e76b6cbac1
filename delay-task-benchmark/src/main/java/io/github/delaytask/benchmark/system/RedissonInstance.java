package io.github.delaytask.benchmark.system;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A Redisson client with one delayed queue of its own and its consumer threads. A task travels as
 * {@code kind:executeTime:sequence}.
 */
final class RedissonInstance implements Instance {

    private final RedissonClient client;

    private final String name;

    private final RBlockingQueue<String> queue;

    private final RDelayedQueue<String> delayed;

    private final RedisAdmin redis;

    private final AtomicLong sequence = new AtomicLong();

    private final List<Thread> consumers = new ArrayList<>();

    private volatile boolean running = true;

    RedissonInstance(RedissonClient client, String name, TaskSink sink, RedisAdmin redis) {
        this.client = client;
        this.name = name;
        this.queue = client.getBlockingQueue(name, StringCodec.INSTANCE);
        this.delayed = client.getDelayedQueue(this.queue);
        this.redis = redis;
        for (int i = 0; i < RedissonSystem.CONSUMERS; i++) {
            Thread consumer = new Thread(() -> consume(sink), "redisson-consumer-" + i);
            consumer.setDaemon(true);
            consumer.start();
            this.consumers.add(consumer);
        }
    }

    private void consume(TaskSink sink) {
        while (this.running) {
            try {
                String task = this.queue.poll(1, TimeUnit.SECONDS);
                if (task != null) {
                    int first = task.indexOf(':');
                    int second = task.indexOf(':', first + 1);
                    sink.handled(TaskKind.values()[Integer.parseInt(task.substring(0, first))],
                            Long.parseLong(task.substring(first + 1, second)));
                }
            }
            catch (InterruptedException ex) {
                return;
            }
            catch (RuntimeException ex) {
                if (this.running) {
                    System.err.println("Redisson consumer: " + ex);
                }
            }
        }
    }

    @Override
    public void add(BenchTask task) {
        this.delayed.offer(element(task), delay(task), TimeUnit.MILLISECONDS);
    }

    @Override
    public void addBatch(List<BenchTask> tasks) {
        List<RFuture<Void>> offers = new ArrayList<>(tasks.size());
        for (BenchTask task : tasks) {
            offers.add(this.delayed.offerAsync(element(task), delay(task), TimeUnit.MILLISECONDS));
        }
        offers.forEach((offer) -> offer.toCompletableFuture().join());
    }

    private String element(BenchTask task) {
        return task.kind().ordinal() + ":" + task.executeTimeMillis() + ":" + this.sequence.incrementAndGet();
    }

    private static long delay(BenchTask task) {
        // Redisson adds the delay to its own clock reading; a due time in the past means now
        return Math.max(0, task.executeTimeMillis() - System.currentTimeMillis());
    }

    /** Never: a consumer removes a task from Redis when it takes it, before its handler runs. */
    @Override
    public boolean anyUnfinished(TaskKind kind, long dueUpToMillis) {
        return false;
    }

    @Override
    public void clear() {
        this.redis.delete("*" + this.name + "*");
    }

    @Override
    public OptionalLong redisBytes() {
        return OptionalLong.of(this.redis.keyBytes("*" + this.name + "*"));
    }

    @Override
    public void close() {
        this.running = false;
        for (Thread consumer : this.consumers) {
            try {
                consumer.join(2000);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        this.delayed.destroy();
        this.redis.delete("*" + this.name + "*");
        this.client.shutdown();
    }

}
