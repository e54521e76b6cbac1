/**
 * The listener infrastructure: finds {@code @DelayTaskListener} methods and runs a poll loop for each.
 */
package io.github.delaytask.listener;
