package io.github.delaytask.scheduling;

import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.DistributedLocks;
import io.github.delaytask.core.Claim;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.ConsumedQueues;
import io.github.delaytask.core.DueSignals;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.redis.RecoveryMarkers;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Runs the feed, reload, refresh and purge jobs, and the recovery from Redis data loss, on threads of its own,
 * started and stopped with the context. Public for wiring.
 * <p>
 * The feed brings the tasks entering the preload window into Redis every {@code delay-task.feed-interval}, reading
 * only what entered since its last pass; the reload reads the whole window, rarely, as a safety net (see
 * {@link TaskReloader}). Each run takes a lock first and skips the run when another instance holds it; the lock is
 * kept for most of an interval after a fast run, so per interval one instance does the work. The jobs are safe to
 * run twice (every step is an atomic, idempotent script or a delete of rows no one changes any more), so the lock
 * saves work rather than guarding correctness. Listeners do not wait for the refresh: they move due tasks of their
 * own queue when they poll. A claim that finds its queue's loaded marker missing, or that succeeds after a failed one,
 * has the recovery reload at once ({@link RedisLossRecovery}), without waiting for the next reload.
 */
public class DelayTaskJobs implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(DelayTaskJobs.class);

    /**
     * Not the name of earlier versions' reload ({@code reload}), which ran every minute: a safety net kept for most of
     * its long interval would hold up their reload after a rollback.
     */
    static final String RELOAD_LOCK = "full-reload";

    static final String REFRESH_LOCK = "refresh";

    static final String PURGE_LOCK = "purge";

    static final String FEED_LOCK = "preload-feed";

    /** An idle queue holding more ids than this is not worth checking against the database now. */
    private static final int CLEAN_UP_LIMIT = 100;

    /** How long a stop waits for the jobs to end once interrupted: a part of the shutdown's bound. */
    static final long STOP_WAIT_MILLIS = 1000;

    /** Null without Redis, as the recovery. */
    private final @Nullable TaskReloader reloader;

    private final @Nullable RedisLossRecovery recovery;

    private final Claims claims;

    private final ConsumedQueues consumed;

    private final Claims.LossListener lossListener = this::queueLost;

    private final TaskQueues queues;

    /** Null without Redis, where only the purge runs. */
    private final @Nullable QueueAdministration administration;

    private final TaskStore store;

    private final DistributedLocks locks;

    private final JobSettings settings;

    private final HistoryPurger purger;

    private final HistorySettings history;

    private volatile ScheduledExecutorService executor;

    /** When each queue was first seen with nothing due later, in nanos of {@link System#nanoTime()}. */
    private final Map<QueueId, Long> emptySince = new ConcurrentHashMap<>();

    /** The registry as the refresh job last read it, and when (nanos of {@link System#nanoTime()}). */
    private volatile @Nullable Set<QueueId> registered;

    private volatile long registeredAt;

    private volatile boolean running;

    /** Whether the feed's last pass failed: its warning is logged once for a streak of failures. Its thread's. */
    private volatile boolean feedFailing;

    /** As {@link #feedFailing}, for this instance's catching up. Its thread's. */
    private volatile boolean catchUpFailing;

    private volatile boolean autoStartup = true;

    /**
     * @param administration the registry of queues, which the refresh visits and cleans up; null without Redis, where
     * only the purge runs
     * @param markers the loaded markers a recovery sets, and the feed's; null without Redis
     * @param claims the claims whose losses a recovery follows, and which move the due tasks of the queues no
     * dispatcher here claims from
     * @param signals told of the tasks a reload or recovery brought into Redis
     * @param consumed the queues this instance claims from: a recovery marks them loaded, the refresh leaves those a
     * dispatcher here claims from to it
     * @param dueClock the clock of execute times, of the feed's horizons
     * @param clock the clock of the times the health details show
     */
    public DelayTaskJobs(TaskStore store, TaskQueues queues, @Nullable QueueAdministration administration,
            @Nullable RecoveryMarkers markers, Claims claims, DueSignals signals, ConsumedQueues consumed,
            DistributedLocks locks, JobSettings settings, HistorySettings history, Clock dueClock, Clock clock) {
        if (markers != null) {
            this.reloader = new TaskReloader(store, queues, markers, settings.preloadWindow(), settings.feedInterval(),
                    dueClock, clock, signals);
            this.recovery = new RedisLossRecovery(this.reloader, markers, locks, consumed::consumed, settings.span());
        }
        else {
            this.reloader = null;
            this.recovery = null;
        }
        this.purger = new HistoryPurger(store, history);
        this.claims = claims;
        this.consumed = consumed;
        this.queues = queues;
        this.administration = administration;
        this.store = store;
        this.locks = locks;
        this.settings = settings;
        this.history = history;
    }

    /**
     * The jobs without Redis ({@code delay-task.redis.enabled=false}): only the purge, as the database's claims find
     * every due task themselves and there is no Redis to feed, reload, refresh or recover.
     * @param queues the queues' port, which holds nothing ({@code TaskQueues.none()})
     */
    public static DelayTaskJobs withoutRedis(TaskStore store, TaskQueues queues, Claims claims, DueSignals signals,
            ConsumedQueues consumed, DistributedLocks locks, JobSettings settings, HistorySettings history,
            Clock clock) {
        return new DelayTaskJobs(store, queues, null, null, claims, signals, consumed, locks, settings, history, clock,
                clock);
    }

    @Override
    public synchronized void start() {
        if (this.running) {
            return;
        }
        if (this.administration != null) {
            checkKeys();
        }
        checkSchema();
        if (this.recovery != null) {
            // a recovery asked for before a stop was dropped with the threads that were to run it
            this.recovery.runDropped();
        }
        this.running = true;
        // a thread per job and one for the recovery: neither a long purge nor a long reload holds up the others
        // not daemons: they keep an application that has nothing else to run, a worker without a web server, alive
        this.executor = new ScheduledThreadPoolExecutor(6, new CustomizableThreadFactory("delay-task-jobs-"));
        if (this.history.purgeEnabled()) {
            // at start-up too: instances restarted more often than the interval would otherwise never purge, and the
            // lock, kept for most of an interval after each run, stops restarts from purging more often
            this.executor.scheduleWithFixedDelay(this::purgeUnderLock, 0, this.history.purgeInterval().toMillis(),
                    TimeUnit.MILLISECONDS);
        }
        if (this.administration == null) {
            return;
        }
        long feed = this.settings.feedInterval().toMillis();
        long reload = this.settings.reloadInterval().toMillis();
        long refresh = this.settings.refreshInterval().toMillis();
        // this instance's catching up reads the whole window at its start: the reload's first run waits an interval
        this.executor.scheduleWithFixedDelay(this::catchUp, 0, feed, TimeUnit.MILLISECONDS);
        this.executor.scheduleWithFixedDelay(this::feedUnderLock, 0, feed, TimeUnit.MILLISECONDS);
        this.executor.scheduleWithFixedDelay(this::reloadUnderLock, reload, reload, TimeUnit.MILLISECONDS);
        this.executor.scheduleWithFixedDelay(this::refreshUnderLock, refresh, refresh, TimeUnit.MILLISECONDS);
        this.claims.addLossListener(this.lossListener);
    }

    /**
     * Fail start-up when the keys' prefix cannot be found (a schema without the store id); a database that is out
     * of reach for now only delays finding it.
     */
    private void checkKeys() {
        try {
            this.queues.keyPrefix();
        }
        catch (DataAccessException ex) {
            logger.warn("Could not read the task store's id, which the Redis keys start with; trying again on first "
                    + "use", ex);
        }
    }

    /**
     * Fail start-up when the schema lacks a column this version writes: every finish would fail, and its task run
     * again after each lease. A database that is out of reach for now is checked by its first statements instead.
     */
    private void checkSchema() {
        try {
            this.store.checkSchema();
        }
        catch (DataAccessException ex) {
            logger.warn("Could not check the delay-task schema", ex);
        }
    }

    @Override
    public synchronized void stop() {
        if (!this.running) {
            return;
        }
        this.running = false;
        this.claims.removeLossListener(this.lossListener);
        this.executor.shutdownNow();
        try {
            if (!this.executor.awaitTermination(STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                // every job is safe to cut short: a reload or recovery is done again by the next instance or start,
                // a purge deletes in transactions of its own, and their locks run out
                logger.warn("A delay-task job did not end within " + STOP_WAIT_MILLIS + " ms of its interrupt (a "
                        + "statement the database does not answer?); the stop goes on, and the job ends when its "
                        + "statement does");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Just before the listeners ({@link SmartLifecycle#DEFAULT_PHASE}), and so stopped just after them: their first
     * claims tell of a Redis that started empty or lost its data, and the recovery must be listening by then, or a
     * queue looked at only now and then would stay unmarked until its next look.
     */
    @Override
    public int getPhase() {
        return DEFAULT_PHASE - 1;
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /**
     * Whether the jobs start with the application context; otherwise they wait for {@link #start()}: without them
     * tasks due beyond the preload window never reach Redis, and a Redis that lost data is not recovered.
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public boolean isAutoStartup() {
        return this.autoStartup;
    }

    /**
     * Reload now, whatever the lock says: for tests and for an operator who knows Redis lost data.
     * @return how many tasks were brought in
     */
    public int reloadNow() {
        if (this.reloader == null) {
            // without Redis there is nothing to reload into
            return 0;
        }
        return this.reloader.reload(() -> {
        }, false);
    }

    /**
     * Run a pass of the feed now, whatever the lock says, after this instance's own catching up if it has evidence:
     * for tests and benchmarks.
     * @return how many tasks it read
     */
    public int feedNow() {
        if (this.reloader == null) {
            return 0;
        }
        return Math.max(0, this.reloader.catchUp()) + this.reloader.feed(() -> {
        });
    }

    /**
     * Rows of {@code taskinfo} the feed's passes read on this instance since it started: about the tasks that entered
     * the window while this instance fed, and the whole window once per full pass.
     */
    public long fedRows() {
        return (this.reloader != null) ? this.reloader.fedRows() : 0;
    }

    /**
     * Whether the last pass of the feed on this instance, or its last catching up, failed (Redis or the database out
     * of reach): it tries again every feed interval. False without Redis.
     */
    public boolean feedFailing() {
        return this.feedFailing || this.catchUpFailing;
    }

    /**
     * The last full reload this instance ran (at its start, by the reload job, a recovery, or {@link #reloadNow()}),
     * or {@code null} before the first. One instance reloads per interval, so on the others it may be a while ago.
     */
    public @Nullable ReloadRun lastReload() {
        return (this.reloader != null) ? this.reloader.lastRun() : null;
    }

    /**
     * Purge finished tasks older than their retention from {@code taskinfo_logs} now, whatever the lock says and
     * whether or not the purge job is enabled: for tests and for an operator.
     * @return how many rows were deleted
     */
    public long purgeHistoryNow() {
        return this.purger.purge(() -> !Thread.currentThread().isInterrupted());
    }

    /**
     * Rows of {@code taskinfo_logs} the purges of this instance have deleted since it started, growing with each
     * batch: what the {@code delaytask.history.purged} counter counts.
     */
    public long purgedHistoryRows() {
        return this.purger.purgedRows();
    }

    /**
     * Move due tasks of every queue no dispatcher here claims from into its ready set now. A queue found empty at
     * every refresh for a reload interval leaves the registry: the registry of queues ever used would otherwise grow
     * forever, and this job with it. The next task written to the queue, or the reload, registers it again.
     */
    public void refreshNow() {
        if (this.administration != null) {
            refresh(this.administration.queues());
        }
    }

    /**
     * The job's refresh: of the queues registered (read again once a reload interval, so that an idle instance does
     * not read the registry every second), those no dispatcher here claims from; no lock when there are none.
     */
    private void refreshRegistered() {
        long now = System.nanoTime();
        Set<QueueId> registered = this.registered;
        if (registered == null || now - this.registeredAt >= this.settings.span().toNanos()) {
            registered = this.administration.queues();
            this.registered = registered;
            this.registeredAt = now;
        }
        Set<QueueId> listened = this.consumed.listened();
        if (listened.containsAll(registered)) {
            return;
        }
        Set<QueueId> visited = registered;
        underLock(REFRESH_LOCK, this.settings.refreshInterval(), (lock) -> refresh(visited));
    }

    private void refresh(Set<QueueId> registered) {
        long now = System.nanoTime();
        Set<QueueId> listened = this.consumed.listened();
        this.emptySince.keySet().retainAll(registered);
        for (QueueId queue : registered) {
            if (listened.contains(queue)) {
                // its dispatcher moves its due tasks, and looks at it when it needs to
                continue;
            }
            Claim moved = this.claims.moveDue(queue);
            // a paused queue stays in the registry, so that every instance still lists it
            if (moved.nextDueInMillis() >= 0 || moved.paused()) {
                this.emptySince.remove(queue);
                continue;
            }
            Long since = this.emptySince.putIfAbsent(queue, now);
            if (since != null && now - since >= this.settings.span().toNanos()) {
                if (holdsNoLiveTask(queue) && this.administration.unregisterIfEmpty(queue)) {
                    this.emptySince.remove(queue);
                }
                else {
                    // tasks wait to be polled or run: look again an interval later
                    this.emptySince.put(queue, now);
                }
            }
        }
    }

    /**
     * Whether a queue with nothing due later holds only ids of tasks this store finished: such ids are dropped
     * (nobody may ever claim them in a queue without a listener). Under a configured prefix, ids the store does not
     * know belong to another application and stay.
     */
    private boolean holdsNoLiveTask(QueueId queue) {
        List<Long> ids = this.administration.idsReadyOrInFlight(queue, CLEAN_UP_LIMIT);
        if (ids.isEmpty()) {
            return true;
        }
        if (ids.size() >= CLEAN_UP_LIMIT) {
            return false;
        }
        // under the store's own keys an unknown id is of a task whose history was purged, not another application's
        Set<Long> finished = new HashSet<>(this.queues.keysOfOneStore() ? ids : this.store.findKnown(queue, ids));
        this.store.findLive(ids).forEach((task) -> finished.remove(task.taskId()));
        this.administration.forget(queue, finished);
        return finished.size() == new HashSet<>(ids).size();
    }

    /** A claim found that Redis may have lost tasks: recover on a job thread, once for every claim meanwhile. */
    private void queueLost(QueueId queue, long redisTime) {
        if (this.running && this.recovery.request(queue, redisTime)) {
            try {
                this.executor.execute(this::recover);
            }
            catch (RejectedExecutionException ex) {
                // stopping
                this.recovery.runDropped();
            }
        }
    }

    private void recover() {
        try {
            Duration again = this.recovery.recover();
            if (again != null) {
                this.executor.schedule(this::recover, again.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        catch (Throwable ex) {
            if (this.running) {
                logger.warn("delay-task could not recover the queues Redis lost; the next claim that finds its "
                        + "queue's marker missing tries again, and the feed reads the whole window once its own "
                        + "marker is missing", ex);
            }
        }
    }

    /**
     * The safety net: a full reload, rare, and paced. Evidence of a loss has a full reload run at once instead: a
     * recovery, the feed's pass after its marker went missing.
     */
    private void reloadUnderLock() {
        Duration interval = this.settings.reloadInterval();
        underLock(RELOAD_LOCK, interval, (lock) -> {
            // a reload of a large window may outlast the interval: keep the lock while it makes progress
            int count = this.reloader.reload(() -> lock.extend(interval), true);
            if (logger.isDebugEnabled()) {
                logger.debug("Reloaded " + count + " task(s) due within " + this.settings.preloadWindow());
            }
        });
    }

    /**
     * A pass of the feed on one instance, under a lock held as long as the pass makes progress; a streak of failures
     * (Redis down) is logged once. A pass whose lock was lost stops, and leaves the marker where it was.
     */
    private void feedUnderLock() {
        Duration interval = this.settings.feedInterval();
        Duration span = TaskReloader.lockSpan(interval, this.settings.preloadWindow());
        try {
            boolean ran = this.locks.tryLock(FEED_LOCK, span).map((lock) -> {
                try {
                    this.reloader.feed(() -> {
                        if (!lock.extend(span)) {
                            throw new IllegalStateException("The feed's lock was lost during a pass; the next pass "
                                    + "reads from where the last one that ended got to");
                        }
                    });
                    return true;
                }
                finally {
                    lock.unlock(interval.multipliedBy(8).dividedBy(10));
                }
            }).orElse(false);
            if (ran && this.feedFailing) {
                logger.info("delay-task's feed from the database into Redis works again");
            }
            this.feedFailing &= !ran;
        }
        catch (Throwable ex) {
            if (this.running && !this.feedFailing) {
                logger.warn("delay-task's feed from the database into Redis failed; it tries again every " + interval
                        + ", and reads from where it last got to", ex);
            }
            else if (this.running) {
                logger.debug("delay-task's feed failed again", ex);
            }
            this.feedFailing = true;
        }
    }

    /**
     * This instance's own catching up, when it has evidence that Redis may miss tasks (see
     * {@link TaskReloader#catchUp()}): on a thread of its own, so that a long one holds up no pass of the feed here.
     */
    private void catchUp() {
        try {
            if (this.reloader.catchUp() >= 0 && this.catchUpFailing) {
                logger.info("delay-task read the whole window into Redis, which it could not before");
                this.catchUpFailing = false;
            }
        }
        catch (Throwable ex) {
            if (this.running && !this.catchUpFailing) {
                logger.warn("delay-task could not read the whole window into Redis (at its start, or after a "
                        + "hand-off it gave up); it tries again every " + this.settings.feedInterval(), ex);
            }
            else if (this.running) {
                logger.debug("delay-task could not read the whole window into Redis again", ex);
            }
            this.catchUpFailing = true;
        }
    }

    private void refreshUnderLock() {
        refreshRegistered();
    }

    private void purgeUnderLock() {
        Duration interval = this.history.purgeInterval();
        underLock(PURGE_LOCK, interval, (lock) -> {
            // a purge of a large backlog may outlast the interval: keep the lock while it makes progress, and stop
            // once it is lost, rather than delete beside another instance's purge
            long count = this.purger.purge(() -> this.running && !Thread.currentThread().isInterrupted()
                    && lock.extend(interval));
            if (logger.isDebugEnabled()) {
                logger.debug("Purged " + count + " finished task(s) from taskinfo_logs");
            }
        });
    }

    private void underLock(String name, Duration interval, Consumer<DistributedLocks.LockHandle> job) {
        try {
            // a crashed holder blocks the job for one interval at most; a run that overruns it is harmless
            this.locks.tryLock(name, interval).ifPresent((lock) -> {
                try {
                    job.accept(lock);
                }
                finally {
                    lock.unlock(interval.multipliedBy(8).dividedBy(10));
                }
            });
        }
        catch (Throwable ex) {
            if (this.running) {
                logger.warn("delay-task " + name + " job failed; it runs again in " + interval, ex);
            }
        }
    }

}
