package io.github.delaytask.actuate;

import io.github.delaytask.actuate.DelayTasksEndpoint.ChangeDescriptor;
import io.github.delaytask.actuate.DelayTasksEndpoint.ChangeStatus;
import io.github.delaytask.actuate.DelayTasksEndpoint.DeadTasksDescriptor;
import io.github.delaytask.actuate.DelayTasksEndpoint.QueueChangeDescriptor;
import io.github.delaytask.actuate.DelayTasksEndpoint.ScheduleChangeDescriptor;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.lang.Nullable;

/**
 * HTTP statuses of the {@code delaytasks} endpoint: 400 for a page or page size out of range; for a change by hand,
 * 200 with the task as changed, 409 when the task's state does not allow the action (the reason says which state),
 * 400 for a body that asks for no known action or lacks a valid execute time, 404 for an unknown task.
 */
@EndpointWebExtension(endpoint = DelayTasksEndpoint.class)
public class DelayTasksEndpointWebExtension {

    private static final int STATUS_CONFLICT = 409;

    private final DelayTasksEndpoint delegate;

    public DelayTasksEndpointWebExtension(DelayTasksEndpoint delegate) {
        this.delegate = delegate;
    }

    /** One page of the dead tasks, newest first; 400 with the reason for a page or size out of range. */
    @ReadOperation
    public WebEndpointResponse<Object> deadTasks(SecurityContext securityContext, @Selector String collection,
            @Nullable Integer page, @Nullable Integer size) {
        DeadTasksDescriptor dead;
        try {
            dead = this.delegate.deadTasks(securityContext, collection, page, size);
        }
        catch (IllegalArgumentException ex) {
            return new WebEndpointResponse<>(new Refusal(ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
        }
        return (dead != null) ? new WebEndpointResponse<>(dead)
                : new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }

    /**
     * Changes one task or one recurring schedule; the request's body is {@code {"action": "..."}}, with
     * {@code "executeTime"} for a task's reschedule. Actuator accepts only a JSON body for an operation with
     * parameters beyond the path, so a cross-site form post is refused (415).
     */
    @WriteOperation
    public WebEndpointResponse<OperationResponseBody> change(SecurityContext securityContext,
            @Selector String collection, @Selector String id, String action, @Nullable String executeTime) {
        OperationResponseBody change = this.delegate.change(securityContext, collection, id, action, executeTime);
        ChangeStatus outcome;
        if (change instanceof ChangeDescriptor task) {
            outcome = task.status();
        }
        else if (change instanceof ScheduleChangeDescriptor schedule) {
            outcome = schedule.status();
        }
        else {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        int status = switch (outcome) {
            case NOT_ALLOWED -> STATUS_CONFLICT;
            case INVALID_REQUEST -> WebEndpointResponse.STATUS_BAD_REQUEST;
            case CHANGED, UNCHANGED -> WebEndpointResponse.STATUS_OK;
        };
        return new WebEndpointResponse<>(change, status);
    }

    /**
     * Stores or changes a recurring schedule: 200 with the schedule as stored, 400 with the reason for a definition
     * that is not valid.
     */
    @WriteOperation
    public WebEndpointResponse<ScheduleChangeDescriptor> saveSchedule(String name, @Nullable String cron,
            @Nullable String zone, @Nullable String interval, @Nullable Integer taskType, @Nullable Integer priority,
            @Nullable String parameters, @Nullable String catchUp) {
        ScheduleChangeDescriptor change = this.delegate.saveSchedule(name, cron, zone, interval, taskType, priority,
                parameters, catchUp);
        return new WebEndpointResponse<>(change, (change.status() == ChangeStatus.INVALID_REQUEST)
                ? WebEndpointResponse.STATUS_BAD_REQUEST : WebEndpointResponse.STATUS_OK);
    }

    /**
     * Changes one queue, on every instance; the request's body is {@code {"action": "pause"}}, {@code "resume"} or
     * {@code "requeue-dead"}. 200 with whether it is paused now and how many tasks were requeued, also when it was as
     * asked already; 400 for another action; 404 for a queue the cluster does not know.
     */
    @WriteOperation
    public WebEndpointResponse<QueueChangeDescriptor> changeQueue(@Selector String collection,
            @Selector int taskType, @Selector int priority, String action) {
        QueueChangeDescriptor change = this.delegate.changeQueue(collection, taskType, priority, action);
        if (change == null) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        int status = (change.status() == ChangeStatus.INVALID_REQUEST) ? WebEndpointResponse.STATUS_BAD_REQUEST
                : WebEndpointResponse.STATUS_OK;
        return new WebEndpointResponse<>(change, status);
    }

    /**
     * Why a request was refused.
     * @param reason what was wrong with it
     */
    public record Refusal(@Nullable String reason) implements OperationResponseBody {
    }

}
