package io.github.delaytask.sample.webhook;

import java.util.UUID;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.sample.TaskTypes;

import org.springframework.stereotype.Service;

/**
 * Tells the partner what happened, with the starter's own retries: the listener throws while the partner is down,
 * the starter runs it again after 1 s and then 2 s, and after the third failed attempt the task is {@code DEAD}, with
 * the partner's error as its last error. Once the partner is back, an operator requeues it (from the dashboard, or
 * {@code POST /actuator/delaytasks/tasks/{id}} with {@code {"action": "requeue"}}), and it runs again.
 * <p>
 * Compare {@link io.github.delaytask.sample.retry.CallService}, which counts attempts in a table of its own and
 * never leaves a dead task.
 */
@Service
public class WebhookService {

    /** Attempts in all, the first included, before a notification is dead. */
    static final int MAX_ATTEMPTS = 3;

    private final Partner partner;

    private final DelayTaskService tasks;

    WebhookService(Partner partner, DelayTaskService tasks) {
        this.partner = partner;
        this.tasks = tasks;
    }

    /**
     * Send a notification to the partner, at once and in the background.
     * @param event what happened
     * @return the task that delivers it
     */
    public long send(String event) {
        Notification notification = new Notification(UUID.randomUUID().toString(), event);
        // The business key makes the task easy to find from the dashboard's search, and keeps a notification from
        // being queued twice.
        return this.tasks.addTask(DelayTask.builder(TaskTypes.WEBHOOK)
            .bizKey("webhook:" + notification.id())
            .payload(notification)
            .build());
    }

    /**
     * Deliver one notification; a failure is thrown, so that the starter retries it with the back-off below.
     * @param notification read from the task's JSON payload
     */
    @DelayTaskListener(taskType = TaskTypes.WEBHOOK, name = "webhook", maxAttempts = MAX_ATTEMPTS, initialDelay = "1s",
            multiplier = 2)
    public void deliver(Notification notification) {
        this.partner.receive(notification);
    }

}
