/**
 * A benchmark of delay-task beside Redisson's RDelayedQueue and db-scheduler: runs scenarios and prints a table.
 */
package io.github.delaytask.benchmark;
