package io.github.delaytask.sample;

/**
 * Task types of the app, kept in one place so that two kinds of delayed work never share a type: the type is what
 * picks the {@link io.github.delaytask.DelayTaskListener} that runs a task, and it is stored with every task, so a
 * number must not be reused for something else while tasks of it may still be waiting.
 */
public final class TaskTypes {

    /** Cancels an order that is still unpaid; the payload is the order id. */
    public static final int ORDER_TIMEOUT = 1;

    /** Makes one attempt of a call to the flaky service; the payload is a call id and an attempt number. */
    public static final int CALL_ATTEMPT = 2;

    /** Delivers one notification to the partner's webhook, retried by the starter; the payload is the notification. */
    public static final int WEBHOOK = 3;

    /** Settles the day's paid orders, at each time of the {@code daily-settlement} schedule; no payload. */
    public static final int DAILY_SETTLEMENT = 4;

    private TaskTypes() {
    }

}
