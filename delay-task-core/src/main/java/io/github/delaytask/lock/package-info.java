/**
 * The distributed lock on Redis, the {@code @DistributedLock} interceptor, and the records of locked runs that the
 * {@code scheduledlocks} endpoint shows.
 */
package io.github.delaytask.lock;
