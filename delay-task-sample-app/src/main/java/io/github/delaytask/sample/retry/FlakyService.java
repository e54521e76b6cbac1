package io.github.delaytask.sample.retry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * Stands in for a remote service that fails now and then: each call id fails as many times as it was told to, then
 * succeeds. It keeps this in memory, like the remote service it imitates would keep its own state; after a restart
 * every call succeeds.
 */
@Component
public class FlakyService {

    private final Map<Long, AtomicInteger> failuresLeft = new ConcurrentHashMap<>();

    /**
     * Make the next calls with the given id fail.
     * @param callId the call's id
     * @param times how many calls fail before one succeeds
     */
    public void failNextCalls(long callId, int times) {
        this.failuresLeft.put(callId, new AtomicInteger(times));
    }

    /**
     * Call the service.
     * @param callId the call's id
     * @throws CallFailedException if this call fails
     */
    public void call(long callId) {
        AtomicInteger left = this.failuresLeft.get(callId);
        if (left != null && left.getAndDecrement() > 0) {
            throw new CallFailedException("Call " + callId + " failed (simulated)");
        }
        this.failuresLeft.remove(callId);
    }

    /**
     * Thrown when a call to the flaky service fails.
     */
    public static class CallFailedException extends RuntimeException {

        public CallFailedException(String message) {
            super(message);
        }

    }

}
