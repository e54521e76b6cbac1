/**
 * The task service, and the claims and outcomes between Redis and the database that hand tasks to consumers.
 */
@NullMarked
package io.github.delaytask.core;

import org.jspecify.annotations.NullMarked;
