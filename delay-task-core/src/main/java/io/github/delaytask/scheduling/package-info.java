/**
 * The refresh and reload jobs, and the lifecycle bean that runs them.
 */
@NullMarked
package io.github.delaytask.scheduling;

import org.jspecify.annotations.NullMarked;
