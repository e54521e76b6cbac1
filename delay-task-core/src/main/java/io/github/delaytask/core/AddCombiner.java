package io.github.delaytask.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataIntegrityViolationException;

/**
 * Lets concurrent single adds made outside a transaction share one database statement and one commit (a group
 * commit), since each add's cost is almost all round trip and commit, whatever the number of rows.
 * <p>
 * Each caller queues its task and tries the lock; those that find it held wait. The holder stores every task queued
 * (its own and those of the callers waiting) in one call, lets go of the lock, wakes the first caller still in line
 * to store the next group meanwhile, then hands its group to Redis and wakes its callers, each of which waits for
 * Redis on its own thread if its task needs it. A caller alone stores its
 * own task at once: an add waits for no timer, only for the statement running when it came (and, with more than
 * {@value #MAX_GROUP} callers waiting, for the groups ahead of it).
 * <p>
 * Each caller still gets the outcome of its own task: when a group breaks a constraint (an explicit id that
 * exists), its tasks are stored one by one, so that only the caller of the offending task sees the error.
 */
final class AddCombiner {

    private static final Log logger = LogFactory.getLog(AddCombiner.class);

    private static final Consumer<StoredTask> NOTHING = (row) -> {
    };

    /** Bounds one statement, whatever the number of callers. */
    private static final int MAX_GROUP = 500;

    private final Queue<PendingAdd> pending = new ConcurrentLinkedQueue<>();

    private final ReentrantLock storing = new ReentrantLock();

    private final Function<List<NewTask>, List<StoredTask>> storeAll;

    private final Function<NewTask, StoredTask> storeOne;

    private final Function<List<StoredTask>, Consumer<StoredTask>> enqueueAll;

    /** Told that stored tasks could not be handed to Redis. */
    private final Runnable enqueueFailed;

    /**
     * @param storeAll stores tasks in one transaction, all or none, and returns their rows in order
     * @param storeOne stores one task
     * @param enqueueAll hands stored tasks to Redis without waiting for it, and returns what each caller then does
     * with its own row on its own thread (waits for Redis, for a task due soon); expected to deal with its own failures
     * @param enqueueFailed told that stored tasks could not be handed to Redis, as enqueueAll threw
     */
    AddCombiner(Function<List<NewTask>, List<StoredTask>> storeAll, Function<NewTask, StoredTask> storeOne,
            Function<List<StoredTask>, Consumer<StoredTask>> enqueueAll, Runnable enqueueFailed) {
        this.enqueueFailed = enqueueFailed;
        this.storeAll = storeAll;
        this.storeOne = storeOne;
        this.enqueueAll = enqueueAll;
    }

    /**
     * Store a task, in a group with whatever other tasks are waiting, and hand it to Redis.
     * @return the stored row
     * @throws RuntimeException what storing the task threw
     */
    StoredTask add(NewTask task) {
        // like a lock, not interruptible: the holder stores others' tasks too, and an interrupt must not fail them
        boolean interrupted = Thread.interrupted();
        PendingAdd mine = new PendingAdd(task, Thread.currentThread());
        this.pending.add(mine);
        try {
            // callers that find the lock held park rather than queue on it: most find their task stored when they
            // wake, and waking them one by one through the lock would hold up the next group
            while (!mine.taken) {
                if (this.storing.tryLock()) {
                    List<PendingAdd> group = List.of();
                    try {
                        // the tasks ahead of ours first; an empty queue means another caller took ours
                        group = nextGroup();
                        store(group);
                    }
                    finally {
                        this.storing.unlock();
                        // whoever is first in line now stores the next group while this one goes to Redis
                        PendingAdd next = this.pending.peek();
                        if (next != null) {
                            LockSupport.unpark(next.caller);
                        }
                        enqueueAndWake(group);
                    }
                }
                else {
                    // woken when first in line after a group, or when its task is done
                    LockSupport.park(this);
                    interrupted |= Thread.interrupted();
                }
            }
            StoredTask row = mine.outcome.join();
            if (interrupted) {
                // an interrupted caller does not wait for Redis either
                Thread.currentThread().interrupt();
                interrupted = false;
            }
            try {
                // on the caller's own thread, so that no other caller of its group waits with it
                mine.then.accept(row);
            }
            catch (RuntimeException ex) {
                // stored: an exception would have the caller add it again
                logger.warn("Task " + row.taskId() + " is stored but its hand-off to Redis failed", ex);
            }
            return row;
        }
        catch (CompletionException ex) {
            if (ex.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            if (ex.getCause() instanceof Error cause) {
                throw cause;
            }
            throw ex;
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Tasks queued but not taken yet, for tests. */
    int pendingCount() {
        return this.pending.size();
    }

    private List<PendingAdd> nextGroup() {
        List<PendingAdd> group = new ArrayList<>();
        PendingAdd next;
        while (group.size() < MAX_GROUP && (next = this.pending.poll()) != null) {
            group.add(next);
            next.taken = true;
        }
        return group;
    }

    private void store(List<PendingAdd> group) {
        if (group.isEmpty()) {
            return;
        }
        try {
            List<StoredTask> rows = this.storeAll.apply(group.stream().map(PendingAdd::task).toList());
            for (int i = 0; i < group.size(); i++) {
                group.get(i).row = rows.get(i);
            }
        }
        catch (DataIntegrityViolationException ex) {
            if (group.size() == 1) {
                group.get(0).failure = ex;
            }
            else {
                storeOneByOne(group);
            }
        }
        catch (Throwable ex) {
            // the database is out of reach, or the like: the same for every task of the group (Throwable, as a
            // store written in another JVM language may throw a checked exception, and no caller may be left waiting)
            group.forEach((add) -> add.failure = ex);
        }
    }

    private void storeOneByOne(List<PendingAdd> group) {
        for (PendingAdd add : group) {
            try {
                add.row = this.storeOne.apply(add.task);
            }
            catch (Throwable ex) {
                add.failure = ex;
            }
        }
    }

    private void enqueueAndWake(List<PendingAdd> group) {
        if (group.isEmpty()) {
            return;
        }
        Consumer<StoredTask> then = NOTHING;
        try {
            List<StoredTask> stored = new ArrayList<>(group.size());
            for (PendingAdd add : group) {
                if (add.row != null) {
                    stored.add(add.row);
                }
            }
            if (!stored.isEmpty()) {
                then = this.enqueueAll.apply(stored);
            }
        }
        catch (RuntimeException ex) {
            // the tasks are stored: the feed's next pass reads the whole window, and brings them into Redis
            this.enqueueFailed.run();
            logger.warn(group.size() + " task(s) are stored but could not be handed to Redis", ex);
        }
        finally {
            for (PendingAdd add : group) {
                // before the outcome, which publishes it to the caller
                add.then = then;
                if (add.row != null) {
                    add.outcome.complete(add.row);
                }
                else {
                    add.outcome.completeExceptionally((add.failure != null) ? add.failure
                            : new IllegalStateException("Task was not stored"));
                }
                LockSupport.unpark(add.caller);
            }
        }
    }

    /**
     * One caller's task. {@code row} and {@code failure} are written and read by the caller that took the task only;
     * its own caller reads the outcome through the future.
     */
    private static final class PendingAdd {

        private final NewTask task;

        private final Thread caller;

        private final CompletableFuture<StoredTask> outcome = new CompletableFuture<>();

        private volatile boolean taken;

        private StoredTask row;

        private Throwable failure;

        /** What its caller does with its row once stored: set before the outcome is completed. */
        private Consumer<StoredTask> then = NOTHING;

        PendingAdd(NewTask task, Thread caller) {
            this.task = task;
            this.caller = caller;
        }

        NewTask task() {
            return this.task;
        }

    }

}
