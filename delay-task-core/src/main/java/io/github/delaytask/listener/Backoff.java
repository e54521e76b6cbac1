package io.github.delaytask.listener;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.TransactionException;

/**
 * Pauses between tries of a write that failed for a reason that may pass (the database unreachable for a moment),
 * growing from 50 ms to a second.
 */
final class Backoff {

    private static final long FIRST_MILLIS = 50;

    private static final long MAX_MILLIS = 1000;

    private long nextMillis = FIRST_MILLIS;

    /** The next pause, in ms. */
    long nextMillis() {
        long pause = this.nextMillis;
        this.nextMillis = Math.min(this.nextMillis * 2, MAX_MILLIS);
        return pause;
    }

    /**
     * Whether a write that failed so may succeed when tried again: the database or the connection failed, not the
     * data (a constraint, a value the database refuses), which would fail the same way every time.
     */
    static boolean mayPass(Throwable failure) {
        return (failure instanceof DataAccessException && !(failure instanceof DataIntegrityViolationException))
                || failure instanceof TransactionException;
    }

}
