package io.github.delaytask.core;

import java.time.Instant;

import io.github.delaytask.DeadTaskEvent;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes a {@link DeadTaskEvent} for each task recorded dead on this instance. Public for wiring.
 */
public class DeadTaskEvents implements TaskEvents {

    private static final Log logger = LogFactory.getLog(DeadTaskEvents.class);

    private final ApplicationEventPublisher publisher;

    private final TaskStore store;

    public DeadTaskEvents(ApplicationEventPublisher publisher, TaskStore store) {
        this.publisher = publisher;
        this.store = store;
    }

    @Override
    public void died(StoredTask task, String lastError, Throwable cause) {
        try {
            this.publisher.publishEvent(new DeadTaskEvent(details(task, lastError), cause));
        }
        catch (Throwable ex) {
            // the task is recorded dead whatever the application's listeners do
            logger.warn("A listener of the DeadTaskEvent of task " + task.taskId() + " failed", ex);
        }
    }

    /** What the database holds of the task, with its business key; what the claim held if it cannot be read. */
    private TaskDetails details(StoredTask task, String lastError) {
        try {
            TaskDetails details = this.store.findDetails(task.taskId());
            if (details != null) {
                return details;
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Could not read dead task " + task.taskId() + "; its event has no business key", ex);
        }
        return new TaskDetails(task.taskId(), task.taskType(), task.priority(), Instant.ofEpochMilli(task.executeTime()),
                TaskStatus.DEAD, task.attempt(), lastError, null, task.parameters());
    }

}
