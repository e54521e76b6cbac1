package io.github.delaytask.benchmark.system;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A running instance of a system under test. Closing it stops its consumers and removes its storage.
 */
public interface Instance extends AutoCloseable {

    /** Add one task, the way an application adds one. */
    void add(BenchTask task);

    /** Add several tasks with the system's batch API, or as close to one as it has. */
    void addBatch(List<BenchTask> tasks);

    /**
     * Whether the system has a task of a kind due at or before a time that it has not finished yet: a handler has
     * not run, or its completion is not stored. Called every few milliseconds, so it must be cheap.
     */
    boolean anyUnfinished(TaskKind kind, long dueUpToMillis);

    /** Remove every task, leaving empty storage; the consumers keep running. */
    void clear();

    /** Bytes that the system's Redis keys use ({@code MEMORY USAGE}), or empty if it keeps nothing in Redis. */
    OptionalLong redisBytes();

    /** Load due tasks from the database into Redis once, or empty if the system has no such step. */
    /**
     * Rows the system's feed from the database into Redis read since the instance started, or empty if it has no
     * feed that reads only what entered its window.
     */
    default OptionalLong fedRows() {
        return OptionalLong.empty();
    }

    default Optional<Reload> reload() {
        return Optional.empty();
    }

    /**
     * Whether to keep the SQL statements the system sends from now on, one of each shape (an IN list of any length
     * is one shape), with the parameters of its longest execution, else its latest.
     */
    default void recordStatements(boolean on) {
    }

    /** EXPLAIN of every statement recorded, in the order first seen; empty for a system without a database. */
    default List<String> explainRecorded() {
        return List.of();
    }

    /** Forget the statements recorded so far. */
    default void forgetStatements() {
    }

    /** The database's statistics of the system's tables, one line each; empty where there are none to show. */
    default List<TableStatistics> tableStatistics() {
        return List.of();
    }

    @Override
    void close();

    /**
     * One reload.
     * @param duration how long it took
     * @param tasks how many tasks it brought into Redis
     */
    record Reload(Duration duration, int tasks) {
    }

}
