package io.github.delaytask.core;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadPoolExecutor;

import io.github.delaytask.store.StoredTask;

/**
 * Hears what happens to tasks on this instance, for metrics. Public for wiring.
 * <p>
 * The service, the claims, the outcomes and the listener containers call it on their own threads, in the middle of
 * their work: an implementation must be quick and must not throw. Every method does nothing by default.
 */
public interface TaskEvents {

    /** Hears nothing. */
    TaskEvents NONE = new TaskEvents() {
    };

    /**
     * Events that tell each of the given ones, in order.
     * @param events what hears the events
     * @return {@link #NONE} for none, the one for one, otherwise events that tell each
     */
    static TaskEvents of(List<TaskEvents> events) {
        return switch (events.size()) {
            case 0 -> NONE;
            case 1 -> events.get(0);
            default -> new CompositeTaskEvents(events);
        };
    }

    /**
     * New tasks of a queue were committed, whenever they are due.
     * @param queue their queue
     * @param count how many
     */
    default void added(QueueId queue, int count) {
    }

    /**
     * The database recorded what became of runs of tasks of a queue.
     * @param queue their queue
     * @param outcome what became of them
     * @param count how many
     */
    default void completed(QueueId queue, Outcome outcome, int count) {
    }

    /**
     * Claimed tasks of a queue whose lease ran out were made due again: their consumer died or stalled, or a handler
     * outran the lease.
     * @param queue their queue
     * @param count how many
     */
    default void redelivered(QueueId queue, int count) {
    }

    /**
     * A listener's handler is starting a task.
     * @param queue the task's queue
     * @param executeTime when the task was due, epoch ms; 0 for a task added to be due at once, whenever that was
     */
    default void handlerStarting(QueueId queue, long executeTime) {
    }

    /**
     * A listener's handler returned or threw.
     * @param queue the task's queue
     * @param nanos how long it ran
     * @param succeeded whether it returned
     */
    default void handlerFinished(QueueId queue, long nanos, boolean succeeded) {
    }

    /**
     * The database recorded a task {@code DEAD}: its handler failed its last attempt.
     * @param task the task as claimed for that attempt
     * @param lastError the error recorded with it
     * @param cause what the handler threw
     */
    default void died(StoredTask task, String lastError, Throwable cause) {
    }

    /**
     * A listener's handler ran past its timeout: it was interrupted, and the run counts as failed.
     * @param queue the task's queue
     */
    default void handlerTimedOut(QueueId queue) {
    }

    /**
     * A handler that was interrupted for its timeout still ran a while later: it ignored the interrupt, and keeps its
     * thread until it returns.
     * @param queue the task's queue
     */
    default void handlerIgnoredTimeout(QueueId queue) {
    }

    /** The pool of handler threads was created, when the listeners start. */
    default void handlerPoolStarted(ThreadPoolExecutor pool) {
    }

    /** The pool of handler threads was shut down, when the listeners stop. */
    default void handlerPoolStopped(ThreadPoolExecutor pool) {
    }

    /**
     * What the database recorded of a run.
     */
    enum Outcome {

        /** The handler returned: the task is finished. */
        EXECUTED,

        /** The handler failed and the task runs again after its back-off. */
        RETRIED,

        /** The handler failed its last attempt. */
        DEAD;

        /** The outcome in lower case, as metrics tag it. */
        public String tagValue() {
            return name().toLowerCase(Locale.ROOT);
        }

    }

}
