/**
 * Micrometer meters of the task service, the listeners and the queues, for applications that have a meter registry.
 */
@NullMarked
package io.github.delaytask.metrics;

import org.jspecify.annotations.NullMarked;
