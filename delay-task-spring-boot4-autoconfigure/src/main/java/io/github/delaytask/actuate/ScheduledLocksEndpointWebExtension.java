package io.github.delaytask.actuate;

import io.github.delaytask.actuate.ScheduledLocksEndpoint.RunDescriptor;

import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * HTTP statuses for runs by hand of the {@code scheduledlocks} endpoint: 200 when the job ran (its {@code status}
 * says whether it failed), 409 while another instance holds the lock, 400 for a job that cannot be run by hand or a
 * body that does not ask for a run, 404 for an unknown name.
 */
@EndpointWebExtension(endpoint = ScheduledLocksEndpoint.class)
public class ScheduledLocksEndpointWebExtension {

    private static final int STATUS_CONFLICT = 409;

    private final ScheduledLocksEndpoint delegate;

    public ScheduledLocksEndpointWebExtension(ScheduledLocksEndpoint delegate) {
        this.delegate = delegate;
    }

    /**
     * Runs the job of a lock now; the request's body is {@code {"action": "run"}}. Actuator accepts only a JSON body
     * for an operation with parameters beyond the path, so a cross-site form post is refused (415).
     */
    @WriteOperation
    public WebEndpointResponse<RunDescriptor> runScheduledLock(@Selector String name, String action) {
        RunDescriptor run = this.delegate.runScheduledLock(name, action);
        if (run == null) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        int status = switch (run.status()) {
            case LOCKED -> STATUS_CONFLICT;
            case NOT_RUNNABLE, INVALID_REQUEST -> WebEndpointResponse.STATUS_BAD_REQUEST;
            default -> WebEndpointResponse.STATUS_OK;
        };
        return new WebEndpointResponse<>(run, status);
    }

}
