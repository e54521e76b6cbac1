package io.github.delaytask.scheduling;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * When the starter's own jobs run. Public for wiring.
 * @param preloadWindow how far ahead tasks are brought into Redis
 * @param reloadInterval time between reloads from the database
 * @param refreshInterval time between moves of due tasks into the ready sets
 */
public record JobSettings(Duration preloadWindow, Duration reloadInterval, Duration refreshInterval) {

    public JobSettings {
        Assert.isTrue(reloadInterval.toMillis() > 0, "delay-task.reload-interval must be positive");
        Assert.isTrue(refreshInterval.toMillis() > 0, "delay-task.refresh-interval must be positive");
        Assert.isTrue(preloadWindow.compareTo(reloadInterval) > 0, () -> "delay-task.preload-window (" + preloadWindow
                + ") must be longer than delay-task.reload-interval (" + reloadInterval
                + "), or tasks could become due before a reload brings them into Redis");
    }

}
