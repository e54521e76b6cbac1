package io.github.delaytask.scheduling;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * When the starter's own jobs run. Public for wiring.
 * @param preloadWindow how far ahead tasks are brought into Redis
 * @param reloadInterval time between full reloads of the window from the database, a safety net
 * @param refreshInterval time between moves of due tasks into the ready sets
 * @param feedInterval time between passes of the feed, which brings in the tasks that entered the window since its
 * last pass
 */
public record JobSettings(Duration preloadWindow, Duration reloadInterval, Duration refreshInterval,
        Duration feedInterval) {

    private static final Duration MAX_SPAN = Duration.ofMinutes(1);

    public JobSettings {
        Assert.isTrue(reloadInterval.toMillis() > 0, "delay-task.reload-interval must be positive");
        Assert.isTrue(refreshInterval.toMillis() > 0, "delay-task.refresh-interval must be positive");
        Assert.isTrue(feedInterval.toMillis() > 0, "delay-task.feed-interval must be positive");
        Assert.isTrue(preloadWindow.toMillis() > feedInterval.toMillis() + TaskReloader.FEED_MARGIN_MILLIS,
                () -> "delay-task.preload-window (" + preloadWindow + ") must be longer than delay-task.feed-interval ("
                        + feedInterval + ") and " + TaskReloader.FEED_MARGIN_MILLIS + " ms, or tasks could become due "
                        + "before the feed brings them into Redis");
    }

    /**
     * The reload interval, a minute at most: how long the refresh goes before it reads the registry of queues again
     * (and keeps an empty queue in it), and how long a recovery that died blocks the next one. Not the reload interval
     * itself, which is long now that the feed brings tasks in: queues come and go at the feed's pace.
     */
    Duration span() {
        return (this.reloadInterval.compareTo(MAX_SPAN) < 0) ? this.reloadInterval : MAX_SPAN;
    }

}
