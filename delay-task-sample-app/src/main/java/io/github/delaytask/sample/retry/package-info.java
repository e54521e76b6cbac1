/**
 * Retry with growing back-off: each failed call to a flaky service schedules its next attempt as a delayed task.
 */
package io.github.delaytask.sample.retry;
