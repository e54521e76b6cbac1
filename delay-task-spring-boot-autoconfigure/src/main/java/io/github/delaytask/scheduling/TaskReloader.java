package io.github.delaytask.scheduling;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delaytask.redis.QueueId;
import io.github.delaytask.redis.TaskQueues;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;

/**
 * The reload job: brings every live task due within the preload window from the database into Redis.
 * <p>
 * It pages through the execute-time index and never clears anything, so tasks never vanish from Redis for a moment;
 * adding a task twice is harmless and tasks a consumer holds are left alone. Overdue tasks are included, so whatever
 * Redis lost (a restart without persistence, a fail-over, a flush) comes back.
 */
final class TaskReloader {

    private static final int PAGE_SIZE = 1000;

    private final TaskStore store;

    private final TaskQueues queues;

    private final Duration preloadWindow;

    TaskReloader(TaskStore store, TaskQueues queues, Duration preloadWindow) {
        this.store = store;
        this.queues = queues;
        this.preloadWindow = preloadWindow;
    }

    /**
     * @return how many tasks were brought in
     */
    int reload() {
        long horizon = this.store.currentTimeMillis() + this.preloadWindow.toMillis();
        long afterTime = Long.MIN_VALUE;
        long afterId = Long.MIN_VALUE;
        int total = 0;
        List<StoredTask> page;
        do {
            page = this.store.findDue(horizon, afterTime, afterId, PAGE_SIZE);
            Map<QueueId, Map<Long, Long>> byQueue = new LinkedHashMap<>();
            for (StoredTask task : page) {
                byQueue.computeIfAbsent(task.queue(), (queue) -> new LinkedHashMap<>())
                    .put(task.taskId(), task.executeTime());
            }
            byQueue.forEach(this.queues::reload);
            total += page.size();
            if (!page.isEmpty()) {
                StoredTask last = page.get(page.size() - 1);
                afterTime = last.executeTime();
                afterId = last.taskId();
            }
        }
        while (page.size() == PAGE_SIZE);
        return total;
    }

}
