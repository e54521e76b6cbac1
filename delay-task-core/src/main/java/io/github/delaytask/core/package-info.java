/**
 * The task service and the broker between Redis and the database that hands tasks to consumers.
 */
package io.github.delaytask.core;
