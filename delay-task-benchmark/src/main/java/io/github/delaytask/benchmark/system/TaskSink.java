package io.github.delaytask.benchmark.system;

/**
 * What every handler of a system under test calls, first thing, and then returns: the handlers do nothing else.
 */
@FunctionalInterface
public interface TaskSink {

    /**
     * @param kind the task's stream
     * @param executeTimeMillis the due time the system handed to the handler, in epoch milliseconds
     */
    void handled(TaskKind kind, long executeTimeMillis);

}
