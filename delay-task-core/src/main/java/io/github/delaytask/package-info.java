/**
 * Public API of delay-task: tasks, the service that adds and cancels them, the listener annotation, and the
 * {@code @DistributedLock} annotation for cluster-safe jobs.
 */
package io.github.delaytask;
