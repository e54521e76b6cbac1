/**
 * Public API of delay-task: tasks, the service that adds and cancels them, the listener annotation, and the
 * {@code @DistributedLock} annotation for cluster-safe jobs.
 */
@NullMarked
package io.github.delaytask;

import org.jspecify.annotations.NullMarked;
