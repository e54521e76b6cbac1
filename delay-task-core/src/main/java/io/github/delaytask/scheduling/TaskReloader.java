package io.github.delaytask.scheduling;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.ToIntFunction;

import io.github.delaytask.core.DueSignals;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.redis.RecoveryMarkers;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.jspecify.annotations.Nullable;

/**
 * Brings live tasks due within the preload window from the database into Redis: the feed, which reads only what
 * entered the window since its last pass, and the full reload, which reads the whole window.
 * <p>
 * Both page through the execute-time index and never clear anything, so tasks never vanish from Redis for a moment;
 * adding a task twice is harmless and tasks a consumer holds are left alone. A full reload includes overdue tasks, so
 * whatever Redis lost (a restart without persistence, a fail-over, a flush) comes back. It remembers its last full
 * reload, failed or not, for the health details.
 * <p>
 * The feed keeps the horizon it reached in Redis ({@link RecoveryMarkers#feedMarker()}), which Redis loses or rolls
 * back with the data it covers; each pass reads from that horizon to the new one, an index range of about a feed
 * interval. A pass reads the whole window instead when the marker is missing, was left by a full pass that did not
 * end, or cannot be trusted (see {@link #trusted}). Each instance also reads the whole window on evidence of its own,
 * outside the feed's lock: at its start (one that stopped may have left tasks it never handed to Redis), and after it
 * gave up a hand-off to Redis.
 * <p>
 * Why reading from the last horizon misses nothing: a write of a task due within the window ({@code addTask}, a
 * reschedule, a requeue) hands it to Redis after its commit, and the new horizon is taken before its pass reads, a
 * margin short of the window by the same clock. A task the pass cannot see yet, committed after the read began, is
 * handed off after that, by when the window already reaches it.
 */
final class TaskReloader {

    private static final int PAGE_SIZE = 1000;

    /**
     * How far short of the window the feed's horizon stays: what its clock and an adding instance's may differ by
     * (both read the due clock, the Redis server's time, each with its own estimate of it), so that a task committed
     * as a pass reads is either handed to Redis or read by the next pass. Less than the add's own margin would make
     * tasks due a window ahead go to Redis twice.
     */
    static final long FEED_MARGIN_MILLIS = 500;

    private static final Duration MAX_LOCK_SPAN = Duration.ofSeconds(10);

    /**
     * How much older than a few passes and a dead holder's lock the marker may be before it is not trusted: room for a
     * pass that is slow (a burst of tasks entering the window, a busy database) or held up.
     */
    private static final long MARKER_AGE_MARGIN_MILLIS = 5000;

    private final TaskStore store;

    private final TaskQueues queues;

    private final RecoveryMarkers markers;

    private final Duration preloadWindow;

    private final long feedIntervalMillis;

    private final Clock dueClock;

    private final Clock clock;

    private final DueSignals signals;

    private volatile @Nullable ReloadRun lastRun;

    /** Whether this instance fed once: its first pass reads the whole window. */
    private volatile boolean fed;

    private final AtomicLong fedRows = new AtomicLong();

    /**
     * @param markers where the feed keeps the horizon it reached
     * @param feedInterval the time between the feed's passes
     * @param dueClock the clock of execute times, which decides the adds' hand-off too
     * @param clock the clock of the health details' times
     * @param signals told of the earliest execute time of each queue's tasks that were new to Redis, after each call
     * to Redis (dispatchers look at an idle queue only now and then, so they must hear of tasks due before that); and
     * telling of hand-offs this instance gave up, after which the feed reads the whole window
     */
    TaskReloader(TaskStore store, TaskQueues queues, RecoveryMarkers markers, Duration preloadWindow,
            Duration feedInterval, Clock dueClock, Clock clock, DueSignals signals) {
        this.signals = signals;
        this.feedIntervalMillis = feedInterval.toMillis();
        this.store = store;
        this.queues = queues;
        this.markers = markers;
        this.preloadWindow = preloadWindow;
        this.dueClock = dueClock;
        this.clock = clock;
    }

    /** The last full reload on this instance, by the feed or not, or {@code null} before the first. */
    @Nullable ReloadRun lastRun() {
        return this.lastRun;
    }

    /** Rows the feed's passes read on this instance since it started. */
    long fedRows() {
        return this.fedRows.get();
    }

    /**
     * Reload the whole window now.
     * @param afterPage called after each page, so that a long reload can extend its lock
     * @param paced whether it rests after each page as long as the page took, so that a reload on no evidence of a
     * loss never takes more than half of the database's and Redis's attention on its thread
     * @return how many tasks were brought in
     */
    int reload(Runnable afterPage, boolean paced) {
        return recorded(false, (rows) -> pass(this.store.currentTimeMillis() + this.preloadWindow.toMillis(),
                Long.MIN_VALUE, Long.MIN_VALUE, afterPage, paced, rows));
    }

    /**
     * How long the feed's lock is held at most: its interval, or longer for a pass whose pages are slow (its pages
     * extend it), but short of the window, which a holder that died holds up the feed for.
     */
    static Duration lockSpan(Duration feedInterval, Duration preloadWindow) {
        Duration span = preloadWindow.dividedBy(4);
        if (span.compareTo(MAX_LOCK_SPAN) > 0) {
            span = MAX_LOCK_SPAN;
        }
        return (span.compareTo(feedInterval) > 0) ? span : feedInterval;
    }

    /**
     * Read the whole window for this instance's own evidence, unless it has none: it has not fed yet (one that stopped
     * may have left tasks it never handed to Redis), or it gave up a hand-off since. Outside the feed's lock, and the
     * marker left alone: what it makes up for is this instance's, and any instance may hold the lock meanwhile.
     * @return how many tasks it read; -1 without evidence, when it neither read nor asked Redis anything
     */
    int catchUp() {
        if (this.fed && !this.signals.takeDroppedHandOffs()) {
            return -1;
        }
        boolean dropped = this.fed;
        try {
            // Redis first: a read of the whole window that the first send then fails is a waste while Redis is down
            this.markers.feedMarker();
            // paced at a start, where nothing says that tasks are missing; not after a hand-off given up
            return recorded(true, (rows) -> {
                int count = pass(horizon(), Long.MIN_VALUE, Long.MIN_VALUE, () -> {
                }, !dropped, rows);
                // before the run is recorded: who sees it sees this instance fed
                this.fed = true;
                return count;
            });
        }
        catch (RuntimeException | Error ex) {
            if (dropped) {
                this.signals.handOffsDropped();
            }
            throw ex;
        }
    }

    /**
     * One pass of the feed, on one instance at a time: the tasks that entered the window since the horizon the last
     * pass reached, or the whole window when the marker is missing (Redis lost it) or was left by a full pass that did
     * not end. The marker moves on only if it did not change meanwhile.
     * @param afterPage called after each page, so that a long pass can extend its lock
     * @return how many tasks were read
     */
    int feed(Runnable afterPage) {
        // before the read: see the class's comment
        long horizon = horizon();
        String marker = this.markers.feedMarker();
        RecoveryMarkers.FeedMark mark = RecoveryMarkers.feedMark(marker);
        if (marker == null || mark == null || !trusted(mark, horizon)) {
            // Redis lost the marker, and maybe more, or the marker cannot be trusted: at once, unpaced
            String begun = this.markers.beginFullFeed();
            int count = recorded(true, (rows) -> pass(horizon, Long.MIN_VALUE, Long.MIN_VALUE, afterPage, false,
                    rows));
            this.markers.advanceFeed(begun, mark(horizon));
            return count;
        }
        if (horizon <= mark.horizon()) {
            // another instance's pass reached as far, a moment later or by a clock a little ahead
            return 0;
        }
        // after the last horizon: (execute time, id) beyond (from, the largest id)
        int count = pass(horizon, mark.horizon(), Long.MAX_VALUE, afterPage, false, this.fedRows::addAndGet);
        this.markers.advanceFeed(marker, mark(horizon));
        return count;
    }

    /**
     * Whether a pass may read on from the marker. Not when it leads this instance's horizon by more than a pass (a
     * window made shorter since, a clock that ran ahead), as the tasks between would reach Redis only once this
     * horizon passes it; nor when it is older than a few passes and a lock whose holder died (no pass ran for a
     * while, as Redis was out of reach, or Redis came back from an older snapshot, which lost what was written since).
     */
    private boolean trusted(RecoveryMarkers.FeedMark mark, long horizon) {
        long interval = Math.max(this.feedIntervalMillis, mark.intervalMillis());
        long maxLead = interval + 1000;
        long maxAge = 3 * interval + lockSpan(Duration.ofMillis(interval), this.preloadWindow).toMillis()
                + MARKER_AGE_MARGIN_MILLIS;
        return mark.horizon() - horizon <= maxLead && this.dueClock.millis() - mark.writtenAt() <= maxAge;
    }

    private RecoveryMarkers.FeedMark mark(long horizon) {
        return new RecoveryMarkers.FeedMark(horizon, this.dueClock.millis(), this.feedIntervalMillis);
    }

    private long horizon() {
        return this.dueClock.millis() + this.preloadWindow.toMillis() - FEED_MARGIN_MILLIS;
    }

    /**
     * Run a full pass and record it for the health details, with the rows it had read should it fail.
     * @param fed whether its rows count as the feed's
     */
    private int recorded(boolean fed, ToIntFunction<LongConsumer> pass) {
        Instant startedAt = this.clock.instant();
        long start = System.nanoTime();
        AtomicLong read = new AtomicLong();
        LongConsumer rows = fed ? (count) -> {
            read.addAndGet(count);
            this.fedRows.addAndGet(count);
        } : read::addAndGet;
        try {
            int total = pass.applyAsInt(rows);
            this.lastRun = new ReloadRun(startedAt, Duration.ofNanos(System.nanoTime() - start), total, null);
            return total;
        }
        catch (RuntimeException | Error ex) {
            this.lastRun = new ReloadRun(startedAt, Duration.ofNanos(System.nanoTime() - start), (int) read.get(),
                    ex.toString());
            throw ex;
        }
    }

    /**
     * Tasks due up to the horizon after the given position, in pages.
     * @param rows told of the rows read, page by page
     * @throws IllegalStateException when interrupted while it rests
     */
    private int pass(long horizon, long afterTime, long afterId, Runnable afterPage, boolean paced,
            LongConsumer rows) {
        long positionTime = afterTime;
        long positionId = afterId;
        int total = 0;
        // ids are sent per queue once a queue has a page's worth, not per page: with many queues a page holds a few
        // of each, and one script call per queue and page would make the reload a round trip per handful of tasks
        Map<QueueId, Map<Long, Long>> pending = new LinkedHashMap<>();
        List<StoredTask> page;
        do {
            long pageStart = System.nanoTime();
            page = this.store.findDue(horizon, positionTime, positionId, PAGE_SIZE);
            for (StoredTask task : page) {
                Map<Long, Long> ids = pending.computeIfAbsent(task.queue(), (queue) -> new LinkedHashMap<>());
                ids.put(task.taskId(), task.executeTime());
                if (ids.size() >= PAGE_SIZE) {
                    send(task.queue(), ids);
                    pending.remove(task.queue());
                }
            }
            total += page.size();
            rows.accept(page.size());
            if (!page.isEmpty()) {
                StoredTask last = page.get(page.size() - 1);
                positionTime = last.executeTime();
                positionId = last.taskId();
            }
            afterPage.run();
            if (paced && page.size() == PAGE_SIZE) {
                rest(System.nanoTime() - pageStart);
            }
        }
        while (page.size() == PAGE_SIZE);
        pending.forEach(this::send);
        return total;
    }

    private static void rest(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted: the reload stops, and runs again later", ex);
        }
    }

    private void send(QueueId queue, Map<Long, Long> executeTimes) {
        // tasks Redis held already were told of when they came in; telling of them at every reload cost every
        // instance a look at each queue of a large window at once, and the tasks due then a lateness blip
        long earliest = this.queues.reload(queue, executeTimes);
        if (earliest >= 0) {
            this.signals.reloaded(Map.of(queue, earliest));
        }
    }

}
