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
 * after {@value #GIVE_UP_MILLIS} ms (rolled back, or a longer transaction) is left to the reload job. The thread runs
 * only while something waits.
 */
final class CommitWatch {

    private static final Log logger = LogFactory.getLog(CommitWatch.class);

    static final long LOOK_MILLIS = 100;

    static final long GIVE_UP_MILLIS = 60_000;

    /** Of each watch's tasks, how many a look reads. */
    private static final int IDS_PER_WATCH = 10;

    private final TaskStore store;

    private final long lookMillis;

    private final long giveUpMillis;

    /** Guarded by this. */
    private final List<Watched> watched = new ArrayList<>();

    /** Guarded by this; null while nothing waits. */
    private @Nullable ScheduledExecutorService looker;

    /** Guarded by this. */
    private boolean closed;

    CommitWatch(TaskStore store) {
        this(store, LOOK_MILLIS, GIVE_UP_MILLIS);
    }

    CommitWatch(TaskStore store, long lookMillis, long giveUpMillis) {
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
            this.store.findLive(ids).forEach((task) -> live.add(task.taskId()));
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
                logger.info(watch.taskIds().size() + " task(s) added in a transaction without synchronization were not "
                        + "committed within " + this.giveUpMillis + " ms; the reload job hands them to Redis if they are");
            }
        }
        synchronized (this) {
            this.watched.removeAll(done);
            if (this.watched.isEmpty() && this.looker != null) {
                this.looker.shutdown();
                this.looker = null;
            }
        }
    }

    private static void run(Runnable committed) {
        try {
            committed.run();
        }
        catch (RuntimeException ex) {
            logger.warn("Could not hand over tasks committed in a transaction without synchronization; the reload "
                    + "job will", ex);
        }
    }

    /** Whether a thread looks for rows now: only while something waits. */
    synchronized boolean looking() {
        return this.looker != null;
    }

    /** Stop looking: what still waits is left to the reload job. */
    synchronized void close() {
        this.closed = true;
        this.watched.clear();
        if (this.looker != null) {
            this.looker.shutdownNow();
            this.looker = null;
        }
    }

    private record Watched(Set<Long> taskIds, Runnable committed, long giveUpAt) {
    }

}
