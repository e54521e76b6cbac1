package io.github.delaytask.benchmark.system;

/**
 * A task to add to a system under test. It carries nothing but its due time; each system adds its own id.
 * @param kind the stream it belongs to
 * @param executeTimeMillis when it is due, in epoch milliseconds
 */
public record BenchTask(TaskKind kind, long executeTimeMillis) {
}
