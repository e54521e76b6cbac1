package io.github.delaytask.sample.webhook;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.stereotype.Component;

/**
 * Stands in for the partner's webhook, over HTTP in a real application: while it is down every delivery fails as a
 * 503 would. It keeps what it received in memory, by notification id, as a partner that ignores a second delivery of
 * the same notification would.
 */
@Component
public class Partner {

    private final AtomicBoolean up = new AtomicBoolean(true);

    private final Map<String, String> received = new ConcurrentHashMap<>();

    /**
     * Receive a notification.
     * @param notification what happened
     * @throws PartnerUnavailableException while the partner is down
     */
    public void receive(Notification notification) {
        if (!this.up.get()) {
            throw new PartnerUnavailableException("Partner webhook answered 503 Service Unavailable for notification "
                    + notification.id());
        }
        this.received.putIfAbsent(notification.id(), notification.event());
    }

    public boolean isUp() {
        return this.up.get();
    }

    /** Take the partner down, or bring it back. */
    public void setUp(boolean up) {
        this.up.set(up);
    }

    /** The events received, in no particular order. */
    public List<String> received() {
        return List.copyOf(this.received.values());
    }

    /** Whether the notification with the given id was received. */
    public boolean hasReceived(String notificationId) {
        return this.received.containsKey(notificationId);
    }

    /**
     * Thrown while the partner is down.
     */
    public static class PartnerUnavailableException extends RuntimeException {

        public PartnerUnavailableException(String message) {
            super(message);
        }

    }

}
