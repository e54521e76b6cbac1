/**
 * The database side: the task store, which decides every state change of a task.
 */
@NullMarked
package io.github.delaytask.store;

import org.jspecify.annotations.NullMarked;
