package io.github.delaytask.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Runs what waits for the commit of a caller's transaction that Spring does not synchronize (a transaction manager set
 * to {@code SYNCHRONIZATION_NEVER}): no callback says when it commits, so a thread of its own looks for the new rows
 * every {@value #LOOK_MILLIS} ms, from a connection of its own, which sees them once committed. What is not there
 * after {@value #GIVE_UP_MILLIS} ms (rolled back, or a longer transaction) is left to the feed, told to read the whole
 * window. The thread runs only while something waits.
 */
final class CommitWatch {

    private static final Log logger = LogFactory.getLog(CommitWatch.class);

    static final long LOOK_MILLIS = 100;

    static final long GIVE_UP_MILLIS = 60_000;

    /**
     * How soon after a change made in a transaction without synchronization the feed is first told to read the whole
     * window: the change went to Redis before its commit, which may have rolled it back or come late.
     */
    static final long REMIND_SOON_MILLIS = 5000;

    /** Of each watch's tasks, how many a look reads. */
    private static final int IDS_PER_WATCH = 10;

    private final TaskStore store;

    private final long lookMillis;

    private final long giveUpMillis;

    /** Told of tasks it gave up on, which may be committed later, or of a hand-off that failed. */
    private final Runnable givenUp;

    /** Guarded by this. */
    private final List<Watched> watched = new ArrayList<>();

    /** Guarded by this; null while nothing waits. */
    private @Nullable ScheduledExecutorService looker;

    /** Guarded by this. */
    private boolean closed;

    /** When the feed is told next of changes made before a commit, nanos; 0 for no such reminder. Guarded by this. */
    private long remindSoonAt;

    /** As {@link #remindSoonAt}, once the watch would give up a commit; guarded by this. */
    private long remindLateAt;

    /** Whether changes came after the late reminder was set, which then comes once more; guarded by this. */
    private boolean remindLateAgain;

    /** When the last soon reminder was set, nanos; 0 for never. Guarded by this. */
    private long remindedSoonAt;

    /** @param givenUp told of tasks it gave up on, which may be committed later, or of a hand-off that failed */
    CommitWatch(TaskStore store, Runnable givenUp) {
        this(store, LOOK_MILLIS, GIVE_UP_MILLIS, givenUp);
    }

    CommitWatch(TaskStore store, long lookMillis, long giveUpMillis, Runnable givenUp) {
        this.givenUp = givenUp;
        this.store = store;
        this.lookMillis = lookMillis;
        this.giveUpMillis = giveUpMillis;
    }

    /**
     * Run the given work once any of the given new tasks is committed: they are stored in one transaction, all or
     * none.
     */
    synchronized void watch(Collection<Long> taskIds, Runnable committed) {
        if (this.closed || taskIds.isEmpty()) {
            return;
        }
        this.watched.add(new Watched(Set.copyOf(taskIds), committed, System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(this.giveUpMillis)));
        startLooking();
    }

    /**
     * A change of a stored task (a reschedule, a cancel) went to Redis before the commit of a transaction without
     * synchronization, which may roll it back or commit it when Redis no longer holds what the database does: tell
     * the feed to read the whole window a few seconds later, for a short transaction, and once the watch would give
     * up a commit, for a long one; each change is followed by a reminder at least a give-up time later. However many
     * changes come, the feed is told at most twice a {@link #GIVE_UP_MILLIS give-up time}, each time a read of the
     * whole window: a change within a give-up time of the last soon reminder waits for the late one.
     */
    synchronized void remindLater() {
        if (this.closed) {
            return;
        }
        long now = System.nanoTime();
        long giveUp = TimeUnit.MILLISECONDS.toNanos(this.giveUpMillis);
        if (this.remindSoonAt == 0 && (this.remindedSoonAt == 0 || now - this.remindedSoonAt >= giveUp)) {
            this.remindedSoonAt = now;
            this.remindSoonAt = nonZero(now + TimeUnit.MILLISECONDS.toNanos(Math.min(REMIND_SOON_MILLIS,
                    this.giveUpMillis)));
        }
        if (this.remindLateAt == 0) {
            this.remindLateAt = nonZero(now + TimeUnit.MILLISECONDS.toNanos(this.giveUpMillis));
        }
        else {
            this.remindLateAgain = true;
        }
        startLooking();
    }

    private static long nonZero(long nanos) {
        return (nanos != 0) ? nanos : 1;
    }

    private void startLooking() {
        if (this.looker == null) {
            CustomizableThreadFactory threads = new CustomizableThreadFactory("delay-task-commit-watch-");
            threads.setDaemon(true);
            ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(threads);
            started.scheduleWithFixedDelay(this::look, this.lookMillis, this.lookMillis, TimeUnit.MILLISECONDS);
            this.looker = started;
        }
    }

    private void look() {
        List<Watched> looked;
        synchronized (this) {
            looked = List.copyOf(this.watched);
        }
        // a watch's tasks are committed together: a few of each tell, and the look stays one small statement
        Set<Long> ids = new HashSet<>();
        looked.forEach((watch) -> watch.taskIds().stream().limit(IDS_PER_WATCH).forEach(ids::add));
        Set<Long> live = new HashSet<>();
        try {
            if (!ids.isEmpty()) {
                this.store.findLive(ids).forEach((task) -> live.add(task.taskId()));
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Could not look for the rows of tasks added in a transaction without synchronization", ex);
        }
        long now = System.nanoTime();
        List<Watched> done = new ArrayList<>();
        for (Watched watch : looked) {
            if (watch.taskIds().stream().limit(IDS_PER_WATCH).anyMatch(live::contains)) {
                done.add(watch);
                run(watch.committed());
            }
            else if (now - watch.giveUpAt() >= 0) {
                done.add(watch);
                this.givenUp.run();
                logger.info(watch.taskIds().size() + " task(s) added in a transaction without synchronization were not "
                        + "committed within " + this.giveUpMillis + " ms; the feed hands them to Redis if they are");
            }
        }
        if (remindersDue(now)) {
            this.givenUp.run();
        }
        synchronized (this) {
            this.watched.removeAll(done);
            if (this.watched.isEmpty() && this.remindSoonAt == 0 && this.remindLateAt == 0 && this.looker != null) {
                this.looker.shutdown();
                this.looker = null;
            }
        }
    }

    private synchronized boolean remindersDue(long now) {
        boolean due = false;
        if (this.remindSoonAt != 0 && now - this.remindSoonAt >= 0) {
            this.remindSoonAt = 0;
            due = true;
        }
        if (this.remindLateAt != 0 && now - this.remindLateAt >= 0) {
            this.remindLateAt = this.remindLateAgain
                    ? nonZero(now + TimeUnit.MILLISECONDS.toNanos(this.giveUpMillis)) : 0;
            this.remindLateAgain = false;
            due = true;
        }
        return due;
    }

    private void run(Runnable committed) {
        try {
            committed.run();
        }
        catch (RuntimeException ex) {
            this.givenUp.run();
            logger.warn("Could not hand over tasks committed in a transaction without synchronization; the feed "
                    + "will", ex);
        }
    }

    /** Whether a thread looks for rows now: only while something waits. */
    synchronized boolean looking() {
        return this.looker != null;
    }

    /** Stop looking: what still waits is left to the feed of the instances that run on. */
    synchronized void close() {
        this.closed = true;
        this.watched.clear();
        this.remindSoonAt = 0;
        this.remindLateAt = 0;
        if (this.looker != null) {
            this.looker.shutdownNow();
            this.looker = null;
        }
    }

    private record Watched(Set<Long> taskIds, Runnable committed, long giveUpAt) {
    }

}
