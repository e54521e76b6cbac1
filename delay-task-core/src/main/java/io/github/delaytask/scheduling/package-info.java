/**
 * The refresh, reload and purge jobs, the recovery from Redis data loss, and the lifecycle bean that runs them.
 */
@NullMarked
package io.github.delaytask.scheduling;

import org.jspecify.annotations.NullMarked;
