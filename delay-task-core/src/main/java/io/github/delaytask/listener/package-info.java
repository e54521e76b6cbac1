/**
 * The listener infrastructure: finds {@code @DelayTaskListener} methods and runs a poll loop for each.
 */
@NullMarked
package io.github.delaytask.listener;

import org.jspecify.annotations.NullMarked;
