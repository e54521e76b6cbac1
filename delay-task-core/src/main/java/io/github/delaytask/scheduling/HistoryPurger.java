package io.github.delaytask.scheduling;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import io.github.delaytask.TaskStatus;
import io.github.delaytask.store.TaskStore;

/**
 * The purge job: deletes executed and cancelled tasks from {@code taskinfo_logs} once they are older than the
 * retention, and dead ones once older than the dead retention if one is set. Live tasks and {@code taskinfo} are
 * never touched.
 * <p>
 * It deletes in batches, oldest first, each in statements that commit on their own, so that no lock is held for
 * longer than one batch and the adds and finishes of live tasks go on meanwhile. A run ends when every status had a
 * short batch, or when it is told to stop (its lock lost, the application stopping).
 */
final class HistoryPurger {

    /** Most rows one batch deletes. */
    static final int BATCH_SIZE = 1000;

    private final TaskStore store;

    private final HistorySettings settings;

    private final AtomicLong purged = new AtomicLong();

    HistoryPurger(TaskStore store, HistorySettings settings) {
        this.store = store;
        this.settings = settings;
    }

    /**
     * @param goOn asked after each full batch whether to go on
     * @return how many rows this run deleted
     */
    long purge(BooleanSupplier goOn) {
        long now = this.store.currentTimeMillis();
        long before = now - this.settings.retention().toMillis();
        Duration deadRetention = this.settings.deadRetention();
        long run = 0;
        for (TaskStatus status : new TaskStatus[] { TaskStatus.EXECUTED, TaskStatus.CANCELLED, TaskStatus.DEAD }) {
            if (status == TaskStatus.DEAD && deadRetention == null) {
                break;
            }
            long finishedBefore = (status == TaskStatus.DEAD) ? now - deadRetention.toMillis() : before;
            int deleted;
            do {
                deleted = this.store.purgeFinished(status, finishedBefore, BATCH_SIZE);
                run += deleted;
                this.purged.addAndGet(deleted);
                if (deleted == BATCH_SIZE && !goOn.getAsBoolean()) {
                    return run;
                }
            }
            while (deleted == BATCH_SIZE);
        }
        return run;
    }

    /** Rows deleted since this instance started, by every run. */
    long purgedRows() {
        return this.purged.get();
    }

}
