package io.github.delaytask.sample.webhook;

/**
 * What the partner is told, the payload of a {@link io.github.delaytask.sample.TaskTypes#WEBHOOK} task.
 * @param id the notification's id, which the partner uses to ignore a second delivery
 * @param event what happened, such as {@code order 42 paid}
 */
public record Notification(String id, String event) {
}
