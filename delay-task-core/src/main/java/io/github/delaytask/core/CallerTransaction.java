package io.github.delaytask.core;

import java.util.List;

import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The one answer to "does this call run in a transaction of the caller's?", and the work that waits for its commit.
 * A write made in such a transaction joins it, on the caller's own connection, never in a statement shared with other
 * threads; Redis hears of it only once it is committed, since a claim that finds no row for an id drops the id.
 */
final class CallerTransaction {

    private final TaskStore store;

    private final CommitWatch watch;

    /** @param givenUp told of new tasks whose commit it could not follow, which Redis may miss */
    CallerTransaction(TaskStore store, Runnable givenUp) {
        this.store = store;
        this.watch = new CommitWatch(store, givenUp);
    }

    /**
     * Whether a write made now, on this thread, joins a transaction of the caller's on the store's data source (with
     * or without synchronization); one on another data source does not hold the store's writes back.
     */
    boolean active() {
        return this.store.inCallerTransaction();
    }

    /**
     * Run a change's Redis work once the caller's transaction commits, or now without one. A transaction without
     * synchronization cannot be followed to its commit: the work runs now, and a claim made before the commit finds
     * the task as it was and puts it where the database says; what the work took out of Redis, a rollback or a late
     * commit may want back, so the feed reads the whole window a few seconds later, and a minute later.
     */
    void afterCommit(Runnable redisWork) {
        if (!active()) {
            redisWork.run();
        }
        else if (TransactionSynchronizationManager.isSynchronizationActive()) {
            registerAfterCommit(redisWork);
        }
        else {
            redisWork.run();
            this.watch.remindLater();
        }
    }

    /**
     * Hand new tasks to Redis once the caller's transaction commits, or now without one. Without synchronization,
     * once their rows are there ({@link CommitWatch}): handed over at once, a claim before the commit would find no
     * row and drop them, and they would wait for the reload.
     */
    void afterCommit(List<StoredTask> created, Runnable handOff) {
        if (created.isEmpty() || !active()) {
            handOff.run();
        }
        else if (TransactionSynchronizationManager.isSynchronizationActive()) {
            registerAfterCommit(handOff);
        }
        else {
            this.watch.watch(created.stream().map(StoredTask::taskId).toList(), handOff);
        }
    }

    private static void registerAfterCommit(Runnable work) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                work.run();
            }
        });
    }

    /** Stop waiting for commits: what still waits is left to the feed of the instances that run on. */
    void close() {
        this.watch.close();
    }

}
