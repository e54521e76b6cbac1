package io.github.delaytask.listener;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.PayloadCodec;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.ConsumedQueues;
import io.github.delaytask.core.DueSignals;
import io.github.delaytask.core.Outcomes;
import io.github.delaytask.core.Pauses;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskContexts;
import io.github.delaytask.core.TaskEvents;
import io.github.delaytask.observation.TaskObservations;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Owns the dispatcher that claims for every {@code @DelayTaskListener} method and the worker pool their handlers
 * share, and starts and stops them with the application context. Public for wiring.
 * <p>
 * On stop the dispatcher stops claiming at once, and running handlers get the shutdown timeout to finish.
 */
public class DelayTaskListenerEndpointRegistry implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(DelayTaskListenerEndpointRegistry.class);

    /** How long handlers interrupted at shutdown, and the recording of their outcome, may take. */
    static final long GRACE_MILLIS = 2000;

    private final DelayTaskListenerAnnotationBeanPostProcessor processor;

    private final Claims claims;

    private final Outcomes outcomes;

    private final Pauses pauses;

    private final DueSignals signals;

    private final ConsumedQueues consumed;

    private final PayloadCodec codec;

    private final ListenerSettings settings;

    private final TaskEvents events;

    private final TaskObservations observations;

    private final TaskContexts contexts;

    private final DueSignals.Listener scheduleListener = this::scheduled;

    private volatile @Nullable Dispatcher dispatcher;

    private volatile WorkerPool workers;

    private Acknowledger acknowledger;

    private RedisBookkeeping redisBookkeeping;

    private volatile HandBack handBack;

    private volatile Leases leases;

    private volatile boolean running;

    private volatile boolean autoStartup = true;

    /**
     * @param consumed where the queues the dispatcher claims from are recorded while it does
     * @param observations the observations of handler runs, which continue the trace stored with each task
     * @param contexts the context each task's add carried, restored around its handler's runs
     */
    public DelayTaskListenerEndpointRegistry(DelayTaskListenerAnnotationBeanPostProcessor processor, Claims claims,
            Outcomes outcomes, Pauses pauses, DueSignals signals, ConsumedQueues consumed, PayloadCodec codec,
            ListenerSettings settings, TaskEvents events, TaskObservations observations, TaskContexts contexts) {
        this.observations = observations;
        this.contexts = contexts;
        this.processor = processor;
        this.claims = claims;
        this.outcomes = outcomes;
        this.pauses = pauses;
        this.signals = signals;
        this.consumed = consumed;
        this.codec = codec;
        this.settings = settings;
        this.events = events;
    }

    /** Before any thread starts: cluster-wide limits are counted in Redis, which the database has no stand-in for. */
    private void refuseClusterLimitsWithoutRedis(List<ListenerEndpoint> endpoints) {
        if (!this.claims.databaseOnly()) {
            return;
        }
        for (ListenerEndpoint endpoint : endpoints) {
            String limit = (endpoint.clusterConcurrency() > 0) ? "clusterConcurrency"
                    : (endpoint.clusterRate() != null) ? "clusterRate" : null;
            if (limit != null) {
                throw new IllegalStateException(endpoint.describe() + " sets " + limit + ", a limit across every "
                        + "instance, which delay-task keeps in Redis; it runs without Redis "
                        + "(delay-task.redis.enabled=false, or no Redis connection): use concurrency, a limit per "
                        + "instance, or give delay-task Redis");
            }
        }
    }

    @Override
    public synchronized void start() {
        if (this.running) {
            return;
        }
        List<ListenerEndpoint> endpoints = this.processor.endpoints();
        refuseClusterLimitsWithoutRedis(endpoints);
        this.running = true;
        if (endpoints.isEmpty()) {
            return;
        }
        WorkerPool pool = new WorkerPool(this.settings);
        this.workers = pool;
        this.events.handlerPoolStarted(pool.executor());
        RedisBookkeeping redis = new RedisBookkeeping(this.settings.lease().toNanos());
        this.redisBookkeeping = redis;
        this.acknowledger = new Acknowledger(this.outcomes, this.settings.lease(), redis, pool::recorded,
                pool::handlersWaitToStart);
        this.acknowledger.start();
        this.leases = new Leases((running) -> renewLeases(redis, running), this.settings.lease().toNanos(),
                this.events);
        HandBack handBack = new HandBack(this.outcomes, redis);
        this.handBack = handBack;
        this.leases.start();
        Dispatcher started = new Dispatcher(this.claims::claimAll, pool,
                (queue, task, reservation, startBy, recordBy) -> start(pool, handBack, queue, task, reservation,
                        startBy, recordBy),
                this.settings, this.settings.idleLook(), new Waiter(), this.claims::millis);
        for (ListenerEndpoint endpoint : endpoints) {
            TaskRun run = new TaskRun(endpoint, new ListenerMethodInvoker(endpoint, this.codec),
                    endpoint.retryPolicy(this.settings.retryPolicy()), this.outcomes, this.pauses, pool,
                    this.acknowledger, this.events, this.observations, this.contexts, this.leases,
                    endpoint.timeout(this.settings.timeout()), handBack,
                    (piece) -> redis.submit("record a failed run", piece));
            started.listen(endpoint.queue(), run, endpoint.concurrency());
            if (endpoint.clusterConcurrency() > 0) {
                this.claims.limitInFlight(endpoint.queue(), endpoint.clusterConcurrency());
            }
            if (endpoint.clusterRate() != null) {
                this.claims.limitRate(endpoint.queue(), endpoint.clusterRate().permits(),
                        endpoint.clusterRate().period());
            }
        }
        this.dispatcher = started;
        // the queues first: the wake-ups' subscription, once made, looks at each of them
        this.consumed.listens(started.queues());
        this.signals.addListener(this.scheduleListener);
        started.start();
        logger.info("Started " + endpoints.size() + " delay-task listener(s) with " + this.settings.concurrency()
                + " handler thread(s)");
    }

    /**
     * Stops within {@code shutdown-timeout} plus {@link #GRACE_MILLIS}: claiming ends at once, tasks claimed but not
     * started go back (also those whose handler waited for room to start), running handlers get the timeout to
     * finish, and those still running after it are interrupted and get the grace to end, so that their outcome is
     * recorded. A handler that ignores the interrupt keeps running
     * on a daemon thread; its task is delivered again when the lease runs out.
     */
    @Override
    public synchronized void stop() {
        if (!this.running) {
            return;
        }
        this.running = false;
        this.signals.removeListener(this.scheduleListener);
        long deadline = System.nanoTime() + this.settings.shutdownTimeout().toNanos();
        long graceDeadline = deadline + TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS);
        Dispatcher stopped = this.dispatcher;
        if (stopped != null) {
            stopped.stop();
            this.consumed.stopsListening(stopped.queues());
        }
        if (this.workers != null) {
            this.workers.stopStarting();
        }
        try {
            if (stopped != null) {
                stopped.join(deadline);
            }
            if (this.workers != null) {
                giveBack(this.handBack, this.workers.takeUnstarted());
                if (!this.workers.shutdown(deadline)) {
                    logger.warn("Some delay-task handlers were still running after delay-task.shutdown-timeout ("
                            + this.settings.shutdownTimeout() + "); they are interrupted, and the tasks of those that "
                            + "do not end at once will be delivered again after the lease");
                    this.workers.interrupt(graceDeadline);
                }
            }
            if (this.acknowledger != null) {
                this.acknowledger.stop(graceDeadline);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            stopRedisBookkeeping(graceDeadline);
            // after the handlers: those that ran on into the shutdown kept their tasks until they ended
            if (this.leases != null) {
                this.leases.stop();
            }
        }
        if (this.workers != null) {
            this.events.handlerPoolStopped(this.workers.executor());
        }
        this.dispatcher = null;
        this.workers = null;
        this.acknowledger = null;
        this.redisBookkeeping = null;
        this.handBack = null;
        this.leases = null;
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /**
     * Whether the listeners start with the application context; otherwise they wait for {@link #start()}, and the
     * health is out of service until then.
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public boolean isAutoStartup() {
        return this.autoStartup;
    }

    /**
     * The handlers that ran past their timeout, ignored its interrupt and still run, each with its task and thread.
     */
    public List<Map<String, Object>> stuckHandlers() {
        Leases current = this.leases;
        if (current == null) {
            return List.of();
        }
        return current.stuck().stream().map((lease) -> {
            Map<String, Object> handler = new LinkedHashMap<>();
            handler.put("taskId", lease.task().taskId());
            handler.put("taskType", lease.task().taskType());
            handler.put("priority", lease.task().priority());
            handler.put("thread", lease.thread().getName());
            return handler;
        }).toList();
    }

    /** Whether handlers wait for the outcomes of others to be recorded before they may start. */
    boolean handlersWaitToStart() {
        WorkerPool current = this.workers;
        return current != null && current.handlersWaitToStart();
    }

    /** The queues that have a listener here. */
    public List<QueueId> queues() {
        return this.processor.endpoints().stream().map(ListenerEndpoint::queue).toList();
    }

    /** The queues that have a listener here, each with its method and the bean it belongs to. */
    public Map<QueueId, String> listeners() {
        Map<QueueId, String> listeners = new LinkedHashMap<>();
        this.processor.endpoints().forEach((endpoint) -> listeners.put(endpoint.queue(), endpoint.describeMethod()));
        return listeners;
    }

    /** Tell Redis what the database recorded until the deadline; what is left Redis finds out as leases run out. */
    private void stopRedisBookkeeping(long deadline) {
        if (this.redisBookkeeping == null) {
            return;
        }
        try {
            this.redisBookkeeping.stop(deadline);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** The database's lease first, which fences the tasks; Redis's when it answers. */
    private int renewLeases(RedisBookkeeping redis, Collection<StoredTask> running) {
        int renewed = this.outcomes.renewLeasesInDatabase(running);
        List<StoredTask> extended = List.copyOf(running);
        redis.submitLatest("extend the leases of " + extended.size() + " running task(s)", Leases.class,
                () -> this.outcomes.extendLeasesInRedis(extended));
        return renewed;
    }

    private static void giveBack(HandBack handBack, List<StoredTask> unstarted) {
        if (unstarted.isEmpty()) {
            return;
        }
        try {
            handBack.tasks(unstarted);
        }
        catch (RuntimeException ex) {
            logger.warn(unstarted.size() + " claimed task(s) that had not started could not be handed back; they will "
                    + "be delivered again when their lease runs out", ex);
        }
    }

    private void scheduled(QueueId queue, long executeTime) {
        Dispatcher current = this.dispatcher;
        if (current != null) {
            current.scheduled(queue, executeTime);
        }
    }

    /** Hand a claimed task to a handler thread; one the pool no longer takes (it is stopping) goes back. */
    private static void start(WorkerPool pool, HandBack handBack, ListenedQueue queue, StoredTask task,
            Reservation reservation, long startBy, long recordBy) {
        try {
            pool.execute(task, reservation, () -> queue.run().run(task, startBy, recordBy));
        }
        catch (RejectedExecutionException ex) {
            giveBack(handBack, List.of(task));
        }
    }

}
