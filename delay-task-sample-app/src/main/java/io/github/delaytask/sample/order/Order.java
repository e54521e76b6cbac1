package io.github.delaytask.sample.order;

/**
 * An order, as stored in {@code sample_order}.
 *
 * @param id the order's id
 * @param status the order's status
 * @param taskId id of the delayed task that cancels the order if it is not paid in time
 */
public record Order(long id, OrderStatus status, Long taskId) {
}
