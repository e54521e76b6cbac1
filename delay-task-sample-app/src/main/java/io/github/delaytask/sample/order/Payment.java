package io.github.delaytask.sample.order;

/**
 * An order that was just paid.
 *
 * @param id the order's id
 * @param status {@link OrderStatus#PAID}
 * @param timeoutCancelled whether paying cancelled the timeout task; {@code false} when the task had started already,
 * which is harmless: it finds the order paid and leaves it
 */
public record Payment(long id, OrderStatus status, boolean timeoutCancelled) {
}
