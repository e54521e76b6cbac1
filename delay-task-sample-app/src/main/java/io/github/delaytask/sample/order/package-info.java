/**
 * Order timeout: an order not paid within its timeout is cancelled by a delayed task, which paying cancels.
 */
package io.github.delaytask.sample.order;
