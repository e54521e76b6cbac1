/**
 * The Actuator endpoints of delay-task.
 */
@NullMarked
package io.github.delaytask.actuate;

import org.jspecify.annotations.NullMarked;
