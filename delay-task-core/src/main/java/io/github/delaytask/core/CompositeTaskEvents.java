package io.github.delaytask.core;

import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;

import io.github.delaytask.store.StoredTask;

/**
 * {@link TaskEvents} that tell each of several others, in order: the meters and the endpoint's recent activity hear
 * the same events.
 */
final class CompositeTaskEvents implements TaskEvents {

    private final List<TaskEvents> delegates;

    CompositeTaskEvents(List<TaskEvents> delegates) {
        this.delegates = List.copyOf(delegates);
    }

    @Override
    public void added(QueueId queue, int count) {
        this.delegates.forEach((events) -> events.added(queue, count));
    }

    @Override
    public void completed(QueueId queue, Outcome outcome, int count) {
        this.delegates.forEach((events) -> events.completed(queue, outcome, count));
    }

    @Override
    public void redelivered(QueueId queue, int count) {
        this.delegates.forEach((events) -> events.redelivered(queue, count));
    }

    @Override
    public void handlerStarting(QueueId queue, long executeTime) {
        this.delegates.forEach((events) -> events.handlerStarting(queue, executeTime));
    }

    @Override
    public void handlerFinished(QueueId queue, long nanos, boolean succeeded) {
        this.delegates.forEach((events) -> events.handlerFinished(queue, nanos, succeeded));
    }

    @Override
    public void died(StoredTask task, String lastError, Throwable cause) {
        this.delegates.forEach((events) -> events.died(task, lastError, cause));
    }

    @Override
    public void handlerTimedOut(QueueId queue) {
        this.delegates.forEach((events) -> events.handlerTimedOut(queue));
    }

    @Override
    public void handlerIgnoredTimeout(QueueId queue) {
        this.delegates.forEach((events) -> events.handlerIgnoredTimeout(queue));
    }

    @Override
    public void handlerPoolStarted(ThreadPoolExecutor pool) {
        this.delegates.forEach((events) -> events.handlerPoolStarted(pool));
    }

    @Override
    public void handlerPoolStopped(ThreadPoolExecutor pool) {
        this.delegates.forEach((events) -> events.handlerPoolStopped(pool));
    }

}
