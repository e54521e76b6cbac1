package io.github.delaytask.core;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Hands what the database committed to Redis on a thread of its own, so that no caller waits longer than a bound
 * of the starter's own, whatever the application's Redis command timeout: the commit is what makes a task durable,
 * and the feed brings in whatever Redis never heard of (told of what was given up, or taken out only on a later try,
 * it reads the whole window).
 * <p>
 * A caller of a change of a stored task, or of a new task due soon, waits until its write is done or the bound has
 * passed, and not at all while Redis seems out of reach (a write under way for longer than the bound, or the
 * last one failed); others return at once. Writes that failed are tried again, oldest first, once a second, until
 * Redis takes them; writes beyond {@value #MAX_PENDING} waiting are dropped, and left to the feed (a new task, a
 * requeue) or to the claim that meets the task (a cancel, a reschedule). A write waiting holds a task's id, queue and
 * time, never its parameters: Redis needs no more, and a Redis down for long would otherwise keep up to a million
 * payloads (of up to 16 MB each) in memory. So this holds about 100 MB at most. Writes made while others wait share
 * their round trips: the new tasks of one queue go in one {@code ZADD} (of at most {@value #CHUNK} ids, so that Redis
 * is never blocked for long).
 */
final class RedisHandOff {

    private static final Log logger = LogFactory.getLog(RedisHandOff.class);

    static final int MAX_PENDING = 1_000_000;

    static final int CHUNK = 1000;

    private static final long RETRY_PAUSE_MILLIS = 1000;

    /** The pause between tries while {@link #flush} waits: Redis's connections are about to close. */
    private static final long FLUSH_RETRY_PAUSE_MILLIS = 50;

    private final TaskQueues queues;

    private final DueSignals signals;

    private final long timeoutNanos;

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition changed = this.lock.newCondition();

    private final Deque<Write> pending = new ArrayDeque<>();

    /** What Redis did not take of a round it took part of, tried again at {@link #retryAt}; guarded by the lock. */
    private final List<Write> retries = new ArrayList<>();

    /** When to try {@link #retries} again, in nanos of {@link System#nanoTime()}; guarded by the lock. */
    private long retryAt;

    /** Tasks of the writes waiting, guarded by the lock. */
    private int pendingTasks;

    /** Whether a write was dropped since the writes waiting were last under the bound; guarded by the lock. */
    private boolean dropped;

    /** When the round under way began, in nanos of {@link System#nanoTime()}; 0 while none is. */
    private volatile long roundStartedAt;

    /** Whether the last round failed: Redis is out of reach until one succeeds. */
    private volatile boolean failing;

    private boolean closed;

    /** Whether {@link #flush} waits: what waits is tried at once, and again after short pauses; guarded by the lock. */
    private boolean flushing;

    /** Whether a flush waited its bound already, which {@link #close} then does not wait again; guarded by the lock. */
    private boolean flushed;

    private Thread thread;

    /** The earliest task each queue of the current round was given, for the other instances; the thread's own. */
    private final Map<QueueId, Long> toAnnounce = new LinkedHashMap<>();

    RedisHandOff(TaskQueues queues, DueSignals signals, Duration timeout) {
        this.queues = queues;
        this.signals = signals;
        this.timeoutNanos = timeout.toNanos();
    }

    /**
     * Put new tasks into their queues' future sets, and wake this instance's dispatcher if it sleeps past them; returns
     * at once.
     * @return what waits for Redis to take them, as long as the bound allows from now on, and not at all while Redis
     * seems out of reach: for a caller whose task is due soon
     */
    Runnable add(List<StoredTask> tasks) {
        if (tasks.isEmpty()) {
            return () -> {
            };
        }
        NewTasks write = new NewTasks(tasks);
        long deadline = System.nanoTime() + this.timeoutNanos;
        return submit(write) ? () -> awaitTaken(write, deadline) : () -> {
        };
    }

    /** Make a task that exists already due at its execute time (a reschedule, a requeue). */
    void schedule(StoredTask task) {
        // the id, queue and time alone: not the task, whose parameters Redis does not need
        submitAndWait(new Other(new TaskQueues.Change(task.queue(), task.taskId(), task.executeTime()), false));
    }

    /** Drop a task from its queue's future and ready sets: a cancel. */
    void remove(StoredTask task) {
        submitAndWait(new Other(new TaskQueues.Change(task.queue(), task.taskId(), TaskQueues.Change.REMOVE), false));
    }

    /**
     * Drop a task moved beyond the window from its queue's future and ready sets. Made only on a later try, the
     * removal may take out what the feed brought in at the task's new time meanwhile: the feed is then told to read
     * the whole window (see {@link #lateRemovalMade}).
     */
    void moveOut(StoredTask task) {
        submitAndWait(new Other(new TaskQueues.Change(task.queue(), task.taskId(), TaskQueues.Change.REMOVE), true));
    }

    /**
     * Try what waits now, and wait up to the bound for Redis to take it: in the lifecycle's stop, before the
     * application's Redis connections close, as an application that adds tasks and stops at once (a batch job, a
     * deployment), or whose Redis was out of reach a moment before, would otherwise leave them to the full reloads.
     * Writes that come later are still taken.
     */
    void flush() {
        long deadline = System.nanoTime() + this.timeoutNanos;
        this.lock.lock();
        try {
            if (this.thread == null || this.closed) {
                return;
            }
            this.flushing = true;
            this.retryAt = System.nanoTime();
            this.changed.signalAll();
            long remaining;
            while (!idle() && (remaining = deadline - System.nanoTime()) > 0) {
                this.changed.awaitNanos(remaining);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            this.flushing = false;
            this.flushed = true;
            this.lock.unlock();
        }
    }

    /** Whether nothing waits or is under way; under the lock. */
    private boolean idle() {
        return this.pending.isEmpty() && this.retries.isEmpty() && this.roundStartedAt == 0;
    }

    /**
     * Try what is waiting for up to the bound, unless a flush did, then stop the thread; what is left goes to the
     * full reloads, and to the catching up of the next instance that starts.
     */
    void close() {
        Thread running;
        boolean waited;
        this.lock.lock();
        try {
            this.closed = true;
            this.changed.signalAll();
            running = this.thread;
            waited = this.flushed;
        }
        finally {
            this.lock.unlock();
        }
        if (running != null) {
            try {
                if (!waited) {
                    running.join(TimeUnit.NANOSECONDS.toMillis(this.timeoutNanos) + 1);
                }
                running.interrupt();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void submitAndWait(Write write) {
        long deadline = System.nanoTime() + this.timeoutNanos;
        if (submit(write)) {
            awaitTaken(write, deadline);
        }
    }

    /** @return whether the write waits for Redis: not once closed, nor beyond the bound on what waits */
    private boolean submit(Write write) {
        this.lock.lock();
        try {
            if (this.closed) {
                return false;
            }
            if (this.pendingTasks + write.size() > MAX_PENDING) {
                this.signals.handOffsDropped();
                if (!this.dropped) {
                    this.dropped = true;
                    logger.warn("More than " + MAX_PENDING + " tasks wait for Redis; what the database stores from "
                            + "now on reaches Redis through the feed's next pass, which reads the whole window (new "
                            + "tasks, requeues), or when a claim meets it (cancels, reschedules), until Redis takes "
                            + "what waits");
                }
                return false;
            }
            this.pendingTasks += write.size();
            this.pending.add(write);
            startIfNeeded();
            this.changed.signalAll();
            return true;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Wait for Redis to take a write until the deadline, in nanos of {@link System#nanoTime()}. */
    private void awaitTaken(Write write, long deadline) {
        if (redisSeemsOutOfReach()) {
            return;
        }
        try {
            write.done.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean redisSeemsOutOfReach() {
        long startedAt = this.roundStartedAt;
        return this.failing || (startedAt != 0 && System.nanoTime() - startedAt > this.timeoutNanos);
    }

    private void startIfNeeded() {
        if (this.thread == null) {
            // started on first use, never in the constructor; a daemon, as the full reloads cover what it leaves
            this.thread = new Thread(this::run, "delay-task-redis-hand-off");
            this.thread.setDaemon(true);
            this.thread.start();
        }
    }

    private void run() {
        while (true) {
            List<Write> round = nextRound();
            if (round == null) {
                return;
            }
            try {
                List<Write> unwritten = write(round);
                if (lateRemovalMade(round, unwritten)) {
                    // the feed may have brought the task in at its new time meanwhile, and would not bring it again:
                    // the feed's next pass here reads the whole window, which puts back what the removal took
                    this.signals.handOffsDropped();
                }
                this.failing = !unwritten.isEmpty();
                finish(round);
                // after the adds were let go: a wake-up is a round trip that no add should wait for
                this.signals.announce(this.toAnnounce);
                if (!unwritten.isEmpty()) {
                    // on a Cluster, what a master that stalls or failed holds: tried again after a pause, while
                    // what comes meanwhile for the other masters goes on at once
                    logger.debug("Redis took part of what the database stored; trying the rest again in "
                            + RETRY_PAUSE_MILLIS + " ms");
                    scheduledHere(unwritten);
                    retryPart(unwritten);
                }
            }
            catch (Throwable ex) {
                if (!this.failing) {
                    logger.warn("Redis could not take what the database stored; trying again every "
                            + RETRY_PAUSE_MILLIS + " ms (the feed also brings stored tasks in)", ex);
                }
                this.failing = true;
                scheduledHere(round);
                retryLater(round);
            }
            finally {
                this.toAnnounce.clear();
                this.lock.lock();
                try {
                    this.roundStartedAt = 0;
                    // a flush waits for the round
                    this.changed.signalAll();
                }
                finally {
                    this.lock.unlock();
                }
            }
        }
    }

    /**
     * Everything waiting, oldest first, with what a server did not take last time once its pause is over; null once
     * closed and nothing is left to try in time.
     */
    private List<Write> nextRound() {
        this.lock.lock();
        try {
            while (this.pending.isEmpty() && !retriesDue() && !this.closed) {
                if (this.retries.isEmpty()) {
                    this.changed.awaitUninterruptibly();
                }
                else {
                    this.changed.awaitNanos(this.retryAt - System.nanoTime());
                }
            }
            if (this.closed && this.failing) {
                return null;
            }
            List<Write> round = new ArrayList<>();
            if (retriesDue() || this.closed || concernsRetried(this.pending)) {
                round.addAll(this.retries);
                this.retries.clear();
            }
            round.addAll(this.pending);
            this.pending.clear();
            if (round.isEmpty()) {
                return null;
            }
            this.roundStartedAt = System.nanoTime();
            return round;
        }
        catch (InterruptedException ex) {
            this.closed = true;
            return null;
        }
        finally {
            this.lock.unlock();
        }
    }

    private boolean retriesDue() {
        return !this.retries.isEmpty() && System.nanoTime() - this.retryAt >= 0;
    }

    /**
     * Whether a change of a stored task (a reschedule, a requeue, a cancel) concerns a queue with a retry waiting:
     * the retry goes first, before its pause is over, as a reschedule taken before the add it follows would have the
     * add's time put back after it. New tasks are new ids, which no retry concerns.
     */
    private boolean concernsRetried(Collection<Write> writes) {
        if (this.retries.isEmpty()) {
            return false;
        }
        Set<QueueId> retried = new HashSet<>();
        for (Write retry : this.retries) {
            retried.addAll(retry.queues());
        }
        for (Write write : writes) {
            if (write instanceof Other other && retried.contains(other.change.queue())) {
                return true;
            }
        }
        return false;
    }

    /**
     * New tasks and the registry of their queues, all at once (one ZADD per queue and chunk), then the changes of
     * stored tasks, all at once too, each queue's in their order.
     * @return what Redis did not take, to try again: the new tasks of queues whose server failed or was late (on a
     * Cluster, a master that stalls or failed), then of each queue the changes from the first that failed on (and all
     * of a queue whose new tasks are tried again)
     * @throws RuntimeException when Redis took none of the new tasks
     */
    private List<Write> write(List<Write> round) {
        Map<QueueId, Map<Long, Long>> news = new LinkedHashMap<>();
        Set<QueueId> written = new LinkedHashSet<>();
        // queues with new tasks this instance's dispatcher has not heard of yet (see scheduledHere)
        Set<QueueId> untold = new HashSet<>();
        for (Write write : round) {
            if (write instanceof NewTasks add) {
                for (int i = 0; i < add.taskIds.length; i++) {
                    news.computeIfAbsent(add.queues[i], (queue) -> new LinkedHashMap<>())
                        .put(add.taskIds[i], add.executeTimes[i]);
                    if (!add.toldHere) {
                        untold.add(add.queues[i]);
                    }
                }
            }
            else if (!((Other) write).change.removes()) {
                written.add(((Other) write).change.queue());
            }
        }
        // no longer than a caller waits: a server slower than that (on a Cluster, a master that stalls or failed)
        // has its part tried again later, and holds up no other server's; the registry of every queue written to
        // goes with the new tasks
        Set<QueueId> unwritten = this.queues.addAll(news, written, CHUNK, Duration.ofNanos(this.timeoutNanos));
        List<Write> again = new ArrayList<>();
        news.forEach((queue, executeTimes) -> {
            if (unwritten.contains(queue)) {
                NewTasks retry = new NewTasks(queue, executeTimes);
                retry.toldHere = !untold.contains(queue);
                again.add(retry);
            }
            else {
                scheduled(queue, executeTimes.values().stream().mapToLong(Long::longValue).min().orElseThrow());
            }
        });
        // at once too, each queue's in order; not those of a queue whose new tasks wait for another try, which may
        // be of the same tasks and must take effect first
        List<TaskQueues.Change> changes = new ArrayList<>();
        List<TaskQueues.Change> held = new ArrayList<>();
        for (Write write : round) {
            if (write instanceof Other other) {
                (unwritten.contains(other.change.queue()) ? held : changes).add(other.change);
            }
        }
        Set<TaskQueues.Change> unmade = Collections.newSetFromMap(new IdentityHashMap<>());
        unmade.addAll(this.queues.changeAll(changes, Duration.ofNanos(this.timeoutNanos)));
        unmade.addAll(held);
        for (TaskQueues.Change change : changes) {
            if (!unmade.contains(change) && !change.removes()) {
                scheduled(change.queue(), change.executeTime());
            }
        }
        // in the round's order, which changeAll kept within each queue
        for (Write write : round) {
            if (write instanceof Other other && unmade.contains(other.change)) {
                Other retry = new Other(other.change, other.movesOut);
                retry.toldHere = other.toldHere;
                again.add(retry);
            }
        }
        return again;
    }

    /**
     * Wake this instance's dispatcher at the times of what Redis did not take: while Redis does not answer, the
     * database dispatches (see {@link DatabaseDispatch}), and a task added here then fires on time rather than at the
     * next poll. The other instances hear of it at their poll.
     */
    private void scheduledHere(List<Write> writes) {
        Map<QueueId, Long> earliest = new HashMap<>();
        for (Write write : writes) {
            if (write.toldHere) {
                // once: a Redis down for long must not wake the dispatcher at every try
                continue;
            }
            write.toldHere = true;
            if (write instanceof NewTasks add) {
                for (int i = 0; i < add.taskIds.length; i++) {
                    earliest.merge(add.queues[i], add.executeTimes[i], Math::min);
                }
            }
            else if (!((Other) write).change.removes()) {
                earliest.merge(((Other) write).change.queue(), ((Other) write).change.executeTime(), Math::min);
            }
        }
        earliest.forEach(this.signals::scheduled);
    }

    /** Wake this instance's dispatcher now; the other instances' once the round is done (see {@link #run}). */
    private void scheduled(QueueId queue, long executeTime) {
        this.signals.scheduled(queue, executeTime);
        this.toAnnounce.merge(queue, executeTime, Math::min);
    }

    private void finish(List<Write> round) {
        int tasks = 0;
        for (Write write : round) {
            tasks += write.size();
            write.done.countDown();
        }
        this.lock.lock();
        try {
            this.pendingTasks -= tasks;
            if (this.pendingTasks < MAX_PENDING / 2) {
                this.dropped = false;
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Try the part of a round that Redis did not take again after a pause, without pausing anything else. */
    /** Whether the round took out a task moved beyond the window, which Redis did not take the first time. */
    private static boolean lateRemovalMade(List<Write> round, List<Write> unwritten) {
        Set<TaskQueues.Change> unmade = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Write write : unwritten) {
            if (write instanceof Other other) {
                unmade.add(other.change);
            }
        }
        for (Write write : round) {
            if (write.late && write instanceof Other other && other.movesOut && !unmade.contains(other.change)) {
                return true;
            }
        }
        return false;
    }

    private void retryPart(List<Write> unwritten) {
        unwritten.forEach((write) -> write.late = true);
        this.lock.lock();
        try {
            if (this.retries.isEmpty()) {
                // a pause from the first failure on: later ones do not put off what waits already
                this.retryAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(retryPauseMillis());
            }
            this.retries.addAll(unwritten);
            for (Write write : unwritten) {
                // new writes, which the bound on what waits has not counted: finish let the round's go
                this.pendingTasks += write.size();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Put a failed round back ahead of what came since, and pause; every write is safe to repeat. */
    private void retryLater(List<Write> round) {
        round.forEach((write) -> write.late = true);
        this.lock.lock();
        try {
            for (int i = round.size() - 1; i >= 0; i--) {
                this.pending.addFirst(round.get(i));
            }
            // new writes do not cut the pause short: a Redis that fails at once must not be tried at the rate of adds;
            // a flush does
            long start = System.nanoTime();
            long remaining;
            while (!this.closed && (remaining = start + TimeUnit.MILLISECONDS.toNanos(retryPauseMillis())
                    - System.nanoTime()) > 0) {
                this.changed.awaitNanos(remaining);
            }
        }
        catch (InterruptedException ex) {
            this.closed = true;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Under the lock. */
    private long retryPauseMillis() {
        return this.flushing ? FLUSH_RETRY_PAUSE_MILLIS : RETRY_PAUSE_MILLIS;
    }

    /** One caller's writes, done when Redis has them. */
    private abstract static class Write {

        final CountDownLatch done = new CountDownLatch(1);

        /** Whether this instance's dispatcher heard of it after Redis did not take it; the hand-off thread's own. */
        boolean toldHere;

        /** Whether Redis did not take it the first time; the hand-off thread's own. */
        boolean late;

        /** How many tasks it writes, which {@link #MAX_PENDING} bounds. */
        abstract int size();

        /** The queues of the tasks it writes or changes. */
        abstract Collection<QueueId> queues();

    }

    /** New tasks: for each, its queue, id and execute time. */
    private static final class NewTasks extends Write {

        private final QueueId[] queues;

        private final long[] taskIds;

        private final long[] executeTimes;

        /** The tasks of one queue that Redis did not take. */
        NewTasks(QueueId queue, Map<Long, Long> executeTimes) {
            this.queues = new QueueId[executeTimes.size()];
            this.taskIds = new long[executeTimes.size()];
            this.executeTimes = new long[executeTimes.size()];
            int i = 0;
            for (Map.Entry<Long, Long> entry : executeTimes.entrySet()) {
                this.queues[i] = queue;
                this.taskIds[i] = entry.getKey();
                this.executeTimes[i] = entry.getValue();
                i++;
            }
        }

        NewTasks(List<StoredTask> tasks) {
            this.queues = new QueueId[tasks.size()];
            this.taskIds = new long[tasks.size()];
            this.executeTimes = new long[tasks.size()];
            for (int i = 0; i < tasks.size(); i++) {
                StoredTask task = tasks.get(i);
                this.queues[i] = task.queue();
                this.taskIds[i] = task.taskId();
                this.executeTimes[i] = task.executeTime();
            }
        }

        @Override
        int size() {
            return this.taskIds.length;
        }

        @Override
        Collection<QueueId> queues() {
            return Arrays.asList(this.queues);
        }

    }

    private static final class Other extends Write {

        /**
         * The change: a schedule writes a task into its queue, which must then be in the registry; a removal takes
         * one out.
         */
        private final TaskQueues.Change change;

        /** Whether it takes out a task moved beyond the window, which the feed may bring in meanwhile. */
        private final boolean movesOut;

        Other(TaskQueues.Change change, boolean movesOut) {
            this.change = change;
            this.movesOut = movesOut;
        }

        @Override
        int size() {
            return 1;
        }

        @Override
        Collection<QueueId> queues() {
            return List.of(this.change.queue());
        }

    }

}
