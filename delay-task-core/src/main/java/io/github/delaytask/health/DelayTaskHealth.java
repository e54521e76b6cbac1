package io.github.delaytask.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.listener.DelayTaskListenerEndpointRegistry;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.scheduling.ReloadRun;
import io.github.delaytask.store.TaskStore;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Whether delay-task can do its work on this instance: its listeners running, Redis and the database answering.
 * Public for wiring: each Boot line's {@code delayTask} health indicator reports what {@link #check()} finds.
 * <p>
 * A check sends Redis a {@code PING} and asks the database for its time, each on a thread of this class, and waits
 * for both at most 500 ms, whatever the command and connection timeouts: a health check must answer while a server
 * hangs. A server counts as unreachable once it has failed to answer, check after check, for longer than
 * {@code unreachableAfter}; a shorter outage keeps the status {@code UP}, and the status comes back to {@code UP} by
 * itself at the first check that gets an answer. While the database dispatches in Redis's stead, an outage of Redis
 * alone leaves the status {@code UP}: tasks are still added and run, and the details say so. Without Redis
 * ({@code delay-task.redis.enabled=false}) only the database is probed.
 */
public class DelayTaskHealth implements SmartLifecycle {

    /** How long a check waits for the probes' answers. */
    static final long PROBE_TIMEOUT_MILLIS = 500;

    /** Null without Redis. */
    private final @Nullable Reachability redis;

    private final Reachability database;

    private final @Nullable DelayTaskListenerEndpointRegistry listeners;

    private final @Nullable DelayTaskJobs jobs;

    private final Duration unreachableAfter;

    /** Null when the database does not dispatch while Redis is away. */
    private final @Nullable Supplier<? extends Collection<QueueId>> dispatchedFromDatabase;

    private final Duration probeTimeout;

    private final Clock clock;

    private @Nullable ExecutorService executor;

    private volatile boolean running;

    /**
     * @param redisTemplate the template the starter talks to Redis with
     * @param store the task store, whose database is probed
     * @param listeners the listener registry, or {@code null} when listeners are off
     * @param jobs the reload and refresh jobs, or {@code null} if there are none
     * @param unreachableAfter how long Redis or the database may fail to answer before the status is {@code DOWN}
     * @param clock the clock of the times in the details and of how long a server has failed
     */
    public DelayTaskHealth(StringRedisTemplate redisTemplate, TaskStore store,
            @Nullable DelayTaskListenerEndpointRegistry listeners, @Nullable DelayTaskJobs jobs,
            Duration unreachableAfter, Clock clock) {
        this(() -> redisTemplate.execute((RedisCallback<String>) RedisConnection::ping), store::currentTimeMillis,
                listeners, jobs, unreachableAfter, Duration.ofMillis(PROBE_TIMEOUT_MILLIS), clock, null);
    }

    /**
     * @param redisTemplate the template the starter talks to Redis with
     * @param store the task store, whose database is probed
     * @param listeners the listener registry, or {@code null} when listeners are off
     * @param jobs the reload and refresh jobs, or {@code null} if there are none
     * @param unreachableAfter how long the database, or Redis when the database does not dispatch in its stead, may
     * fail to answer before the status is {@code DOWN}
     * @param clock the clock of the times in the details and of how long a server has failed
     * @param dispatchedFromDatabase the queues this instance claims from the database, as Redis does not answer
     * their claims; {@code null} when the database does not dispatch in Redis's stead
     * ({@code delay-task.database-dispatch.enabled=false}), so that an outage of Redis, which then stops every task,
     * is {@code DOWN}
     */
    public DelayTaskHealth(StringRedisTemplate redisTemplate, TaskStore store,
            @Nullable DelayTaskListenerEndpointRegistry listeners, @Nullable DelayTaskJobs jobs,
            Duration unreachableAfter, Clock clock,
            @Nullable Supplier<? extends Collection<QueueId>> dispatchedFromDatabase) {
        this(() -> redisTemplate.execute((RedisCallback<String>) RedisConnection::ping), store::currentTimeMillis,
                listeners, jobs, unreachableAfter, Duration.ofMillis(PROBE_TIMEOUT_MILLIS), clock,
                dispatchedFromDatabase);
    }

    /**
     * The health without Redis ({@code delay-task.redis.enabled=false}): the database dispatches every queue, and is
     * the one server probed.
     * @param store the task store, whose database is probed
     * @param listeners the listener registry, or {@code null} when listeners are off
     * @param jobs the purge job, or {@code null} if there is none
     * @param unreachableAfter how long the database may fail to answer before the status is {@code DOWN}
     * @param clock the clock of the times in the details and of how long the database has failed
     */
    public static DelayTaskHealth withoutRedis(TaskStore store, @Nullable DelayTaskListenerEndpointRegistry listeners,
            @Nullable DelayTaskJobs jobs, Duration unreachableAfter, Clock clock) {
        return new DelayTaskHealth(null, store::currentTimeMillis, listeners, jobs, unreachableAfter,
                Duration.ofMillis(PROBE_TIMEOUT_MILLIS), clock, null);
    }

    DelayTaskHealth(Callable<?> redisProbe, Callable<?> databaseProbe,
            @Nullable DelayTaskListenerEndpointRegistry listeners, @Nullable DelayTaskJobs jobs,
            Duration unreachableAfter, Duration probeTimeout, Clock clock) {
        this(redisProbe, databaseProbe, listeners, jobs, unreachableAfter, probeTimeout, clock, null);
    }

    /** @param redisProbe null without Redis */
    DelayTaskHealth(@Nullable Callable<?> redisProbe, Callable<?> databaseProbe,
            @Nullable DelayTaskListenerEndpointRegistry listeners, @Nullable DelayTaskJobs jobs,
            Duration unreachableAfter, Duration probeTimeout, Clock clock,
            @Nullable Supplier<? extends Collection<QueueId>> dispatchedFromDatabase) {
        Assert.isTrue(!unreachableAfter.isNegative(), "delay-task.health.unreachable-after must not be negative");
        this.redis = (redisProbe != null) ? new Reachability("redis", redisProbe) : null;
        this.database = new Reachability("database", databaseProbe);
        this.listeners = listeners;
        this.jobs = jobs;
        this.unreachableAfter = unreachableAfter;
        this.probeTimeout = probeTimeout;
        this.clock = clock;
        this.dispatchedFromDatabase = dispatchedFromDatabase;
    }

    @Override
    public synchronized void start() {
        if (this.running) {
            return;
        }
        // daemon threads: a probe stuck in a socket read that ignores interrupts must not keep the JVM alive
        CustomizableThreadFactory threads = new CustomizableThreadFactory("delay-task-health-");
        threads.setDaemon(true);
        // one probe per server at most is ever outstanding, so two threads never make a probe queue
        this.executor = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), threads);
        this.running = true;
    }

    @Override
    public synchronized void stop() {
        if (!this.running) {
            return;
        }
        this.running = false;
        if (this.redis != null) {
            this.redis.cancel();
        }
        this.database.cancel();
        Objects.requireNonNull(this.executor).shutdownNow();
        this.executor = null;
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /**
     * Check now: {@code OUT_OF_SERVICE} while the application starts or stops, without probing; otherwise probe
     * Redis and the database, waiting at most the probe timeout.
     */
    public synchronized HealthReport check() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("listeners", listenerDetails());
        details.put("dispatch", dispatchDetails());
        ExecutorService executor = this.executor;
        DelayTaskListenerEndpointRegistry listeners = this.listeners;
        if (!this.running || executor == null || (listeners != null && !listeners.isRunning())) {
            addReloadAndLastError(details);
            return new HealthReport(HealthReport.Status.OUT_OF_SERVICE, details);
        }
        Instant sent = this.clock.instant();
        Reachability redis = this.redis;
        if (redis != null) {
            redis.probe(executor, sent);
        }
        this.database.probe(executor, sent);
        long deadline = System.nanoTime() + this.probeTimeout.toNanos();
        if (redis != null) {
            redis.awaitAnswer(deadline, this.clock);
            details.put("redis", redis.details());
        }
        this.database.awaitAnswer(deadline, this.clock);
        details.put("database", this.database.details());
        addReloadAndLastError(details);
        Instant now = this.clock.instant();
        // while the database dispatches in Redis's stead, tasks are still added and run without Redis: an instance
        // in the readiness group must not be taken out of traffic for that
        boolean unreachable = this.database.unreachableFor(this.unreachableAfter, now)
                || (redis != null && this.dispatchedFromDatabase == null
                        && redis.unreachableFor(this.unreachableAfter, now));
        return new HealthReport(unreachable ? HealthReport.Status.DOWN : HealthReport.Status.UP, details);
    }

    private Map<String, Object> listenerDetails() {
        Map<String, Object> details = new LinkedHashMap<>();
        DelayTaskListenerEndpointRegistry listeners = this.listeners;
        if (listeners == null) {
            details.put("enabled", false);
            return details;
        }
        details.put("running", listeners.isRunning());
        List<Map<String, Object>> methods = new ArrayList<>();
        listeners.listeners().forEach((queue, method) -> {
            Map<String, Object> listener = new LinkedHashMap<>();
            listener.put("taskType", queue.taskType());
            listener.put("priority", queue.priority());
            listener.put("method", method);
            methods.add(listener);
        });
        details.put("methods", methods);
        List<Map<String, Object>> stuck = listeners.stuckHandlers();
        if (!stuck.isEmpty()) {
            // handlers that ignored the interrupt of their timeout: each holds a thread of the pool
            details.put("stuckHandlers", stuck);
        }
        return details;
    }

    /**
     * Where this instance's claims go: to Redis, or, for the queues whose Redis does not answer their claims, to the
     * database.
     */
    private Map<String, Object> dispatchDetails() {
        Map<String, Object> details = new LinkedHashMap<>();
        if (this.redis == null) {
            // every queue, for good
            details.put("from", "database");
            return details;
        }
        Collection<QueueId> fromDatabase = (this.dispatchedFromDatabase != null) ? this.dispatchedFromDatabase.get()
                : List.of();
        details.put("from", fromDatabase.isEmpty() ? "redis" : "database");
        if (!fromDatabase.isEmpty()) {
            details.put("databaseQueues", fromDatabase.stream().map(QueueId::toString).toList());
        }
        return details;
    }

    private void addReloadAndLastError(Map<String, Object> details) {
        ReloadRun reload = (this.jobs != null) ? this.jobs.lastReload() : null;
        if (reload != null) {
            Map<String, Object> lastReload = new LinkedHashMap<>();
            lastReload.put("startedAt", reload.startedAt().toString());
            lastReload.put("duration", reload.duration().toString());
            lastReload.put("tasks", reload.tasks());
            if (reload.error() != null) {
                lastReload.put("error", reload.error());
            }
            details.put("lastReload", lastReload);
        }
        if (this.jobs != null && this.redis != null) {
            // what the feed from the database into Redis costs, and whether it works
            details.put("feed", Map.of("rowsRead", this.jobs.fedRows(), "failing", this.jobs.feedFailing()));
        }
        Stream.of((this.redis != null) ? this.redis.lastFailure() : null, this.database.lastFailure())
            .filter(Objects::nonNull)
            .max(Comparator.comparing(Reachability.Failure::at))
            .ifPresent((failure) -> details.put("lastError", failure.details()));
    }

}
