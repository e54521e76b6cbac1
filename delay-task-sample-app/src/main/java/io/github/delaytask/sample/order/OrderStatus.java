package io.github.delaytask.sample.order;

/**
 * Where an order is in its life.
 */
public enum OrderStatus {

    /** Waiting for payment until its timeout. */
    UNPAID,

    /** Paid before its timeout. */
    PAID,

    /** Not paid in time. */
    CANCELLED

}
