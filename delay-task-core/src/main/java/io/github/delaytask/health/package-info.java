/**
 * Whether delay-task can do its work on this instance, for the health contributor of each Boot line.
 */
@NullMarked
package io.github.delaytask.health;

import org.jspecify.annotations.NullMarked;
