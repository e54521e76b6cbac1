package io.github.delaytask.benchmark.system;

import java.util.List;

/**
 * A system under test: knows how to start a fresh instance of itself, with storage of its own.
 */
public interface QueueSystem {

    /** Column header, such as {@code delay-task PostgreSQL}. */
    String name();

    /** How the system is set up, one line each, for the report. */
    List<String> configuration();

    /**
     * Start an instance with new, empty storage (a schema, a database, Redis keys of its own) and its consumers
     * running; every handled task goes to the sink.
     */
    Instance start(TaskSink sink) throws Exception;

}
