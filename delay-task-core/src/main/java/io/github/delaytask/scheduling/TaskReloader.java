package io.github.delaytask.scheduling;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.jspecify.annotations.Nullable;

/**
 * The reload job: brings every live task due within the preload window from the database into Redis.
 * <p>
 * It pages through the execute-time index and never clears anything, so tasks never vanish from Redis for a moment;
 * adding a task twice is harmless and tasks a consumer holds are left alone. Overdue tasks are included, so whatever
 * Redis lost (a restart without persistence, a fail-over, a flush) comes back. It remembers its last run, failed or
 * not, for the health details.
 */
final class TaskReloader {

    private static final int PAGE_SIZE = 1000;

    private final TaskStore store;

    private final TaskQueues queues;

    private final Duration preloadWindow;

    private final Clock clock;

    private final Consumer<Map<QueueId, Long>> reloaded;

    private volatile @Nullable ReloadRun lastRun;

    /**
     * @param reloaded told of the earliest execute time of each queue's tasks that were new to Redis, after each call
     * to Redis: dispatchers look at an idle queue only now and then, so they must hear of tasks due before that
     */
    TaskReloader(TaskStore store, TaskQueues queues, Duration preloadWindow, Clock clock,
            Consumer<Map<QueueId, Long>> reloaded) {
        this.reloaded = reloaded;
        this.store = store;
        this.queues = queues;
        this.preloadWindow = preloadWindow;
        this.clock = clock;
    }

    /** The last run on this instance, or {@code null} before the first. */
    @Nullable ReloadRun lastRun() {
        return this.lastRun;
    }

    /**
     * @param afterPage called after each page, so that a long reload can extend its lock
     * @return how many tasks were brought in
     */
    int reload(Runnable afterPage) {
        Instant startedAt = this.clock.instant();
        long start = System.nanoTime();
        int[] read = { 0 };
        try {
            int total = reload(afterPage, read);
            this.lastRun = new ReloadRun(startedAt, Duration.ofNanos(System.nanoTime() - start), total, null);
            return total;
        }
        catch (RuntimeException | Error ex) {
            this.lastRun = new ReloadRun(startedAt, Duration.ofNanos(System.nanoTime() - start), read[0],
                    ex.toString());
            throw ex;
        }
    }

    /**
     * @param read the number of tasks read so far, kept up to date for the record of a run that fails
     */
    private int reload(Runnable afterPage, int[] read) {
        long horizon = this.store.currentTimeMillis() + this.preloadWindow.toMillis();
        long afterTime = Long.MIN_VALUE;
        long afterId = Long.MIN_VALUE;
        int total = 0;
        // ids are sent per queue once a queue has a page's worth, not per page: with many queues a page holds a few
        // of each, and one script call per queue and page would make the reload a round trip per handful of tasks
        Map<QueueId, Map<Long, Long>> pending = new LinkedHashMap<>();
        List<StoredTask> page;
        do {
            page = this.store.findDue(horizon, afterTime, afterId, PAGE_SIZE);
            for (StoredTask task : page) {
                Map<Long, Long> ids = pending.computeIfAbsent(task.queue(), (queue) -> new LinkedHashMap<>());
                ids.put(task.taskId(), task.executeTime());
                if (ids.size() >= PAGE_SIZE) {
                    send(task.queue(), ids);
                    pending.remove(task.queue());
                }
            }
            total += page.size();
            read[0] = total;
            if (!page.isEmpty()) {
                StoredTask last = page.get(page.size() - 1);
                afterTime = last.executeTime();
                afterId = last.taskId();
            }
            afterPage.run();
        }
        while (page.size() == PAGE_SIZE);
        pending.forEach(this::send);
        return total;
    }

    private void send(QueueId queue, Map<Long, Long> executeTimes) {
        // tasks Redis held already were told of when they came in; telling of them at every reload cost every
        // instance a look at each queue of a large window at once, and the tasks due then a lateness blip
        long earliest = this.queues.reload(queue, executeTimes);
        if (earliest >= 0) {
            this.reloaded.accept(Map.of(queue, earliest));
        }
    }

}
