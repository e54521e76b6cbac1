package io.github.delaytask.benchmark.system;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RDelayedQueue} over an {@code RBlockingQueue}, on the shared Redis: what many applications use
 * for delayed tasks today. Everything is in Redis; a consumer takes a task off the queue before its handler runs.
 */
public final class RedissonSystem implements QueueSystem {

    static final int CONSUMERS = 10;

    private final RedisAdmin redis;

    private final String namePrefix;

    private final AtomicInteger instances = new AtomicInteger();

    public RedissonSystem(RedisAdmin redis, String namePrefix) {
        this.redis = redis;
        this.namePrefix = namePrefix;
    }

    @Override
    public String name() {
        return "Redisson RDelayedQueue";
    }

    @Override
    public List<String> configuration() {
        return List.of("Redisson " + LibraryVersion.of("org.redisson", "redisson")
                + ": RDelayedQueue over RBlockingQueue, StringCodec, single server, Redisson's default pools "
                + "(Redisson logs at each start that RDelayedQueue is deprecated in favour of RReliableQueue)",
                CONSUMERS + " consumer threads, each in a loop of poll(1 s) (BLPOP); batched adds are offerAsync "
                        + "calls sent together, then awaited (Redisson has no batch API for RDelayedQueue)");
    }

    @Override
    public Instance start(TaskSink sink) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + this.redis.host() + ":" + this.redis.port());
        RedissonClient client = Redisson.create(config);
        String queue = this.namePrefix.replace('_', '-') + "-redisson-" + this.instances.incrementAndGet();
        return new RedissonInstance(client, queue, sink, this.redis);
    }

}
