/**
 * Micrometer observations of adds and handler runs, whose trace context travels with each task through the database.
 */
@NullMarked
package io.github.delaytask.observation;

import org.jspecify.annotations.NullMarked;
