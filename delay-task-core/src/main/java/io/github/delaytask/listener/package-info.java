/**
 * The listener infrastructure: finds {@code @DelayTaskListener} methods and runs one dispatcher for all of them,
 * which claims from every queue due at once and hands the tasks to a shared pool of handler threads.
 */
@NullMarked
package io.github.delaytask.listener;

import org.jspecify.annotations.NullMarked;
