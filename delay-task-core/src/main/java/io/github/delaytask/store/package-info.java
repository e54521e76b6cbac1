/**
 * The database side: the task store, which decides every state change of a task.
 */
package io.github.delaytask.store;
