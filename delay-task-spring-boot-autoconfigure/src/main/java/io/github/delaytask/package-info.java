/**
 * Public API of delay-task: tasks, the service that adds and cancels them, and the listener annotation.
 */
package io.github.delaytask;
