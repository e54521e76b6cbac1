/**
 * The Actuator endpoints of delay-task.
 */
package io.github.delaytask.actuate;
