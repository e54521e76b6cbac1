package io.github.delaytask.health;

import java.util.Map;

/**
 * What one health check found. Public for wiring: each Boot line's health indicator turns it into Boot's
 * {@code Health}.
 * @param status the status, named as Boot's status codes are
 * @param details what the check saw, as JSON-ready maps, lists, strings and numbers
 */
public record HealthReport(Status status, Map<String, Object> details) {

    /** The statuses a check can find, with the names of Boot's status codes. */
    public enum Status {

        /** The listeners run, and Redis and the database answer or have not failed for long. */
        UP,

        /** Redis or the database has not answered for longer than {@code delay-task.health.unreachable-after}. */
        DOWN,

        /** The application is starting or stopping: the listeners do not run. */
        OUT_OF_SERVICE

    }

}
