/**
 * The Actuator endpoints and the health contributor of delay-task.
 */
@NullMarked
package io.github.delaytask.actuate;

import org.jspecify.annotations.NullMarked;
