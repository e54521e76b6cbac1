/**
 * The task service and the broker between Redis and the database that hands tasks to consumers.
 */
@NullMarked
package io.github.delaytask.core;

import org.jspecify.annotations.NullMarked;
