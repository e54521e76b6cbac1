package io.github.delaytask;

/**
 * Thrown when a task cannot be stored or changed, for example because the database is unreachable.
 */
public class DelayTaskException extends RuntimeException {

    public DelayTaskException(String message) {
        super(message);
    }

    public DelayTaskException(String message, Throwable cause) {
        super(message, cause);
    }

}
