/**
 * The distributed lock on Redis, the {@code @DistributedLock} interceptor, and the records of locked runs that the
 * {@code scheduledlocks} endpoint shows.
 */
@NullMarked
package io.github.delaytask.lock;

import org.jspecify.annotations.NullMarked;
