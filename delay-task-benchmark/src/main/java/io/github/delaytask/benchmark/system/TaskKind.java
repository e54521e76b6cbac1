package io.github.delaytask.benchmark.system;

/**
 * Which stream a task belongs to: each system keeps the two apart (a task type, a task name), so that a burst can be
 * measured while a backlog waits.
 */
public enum TaskKind {

    /** The tasks a scenario measures. */
    TASK,

    /** The pending tasks of the backlog scenario. */
    BACKLOG,

    /** Tasks spread evenly over 64 queues (16 types, 4 priorities each): see {@link QueueListeners}. */
    QUEUES

}
