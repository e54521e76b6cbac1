package io.github.delaytask.sample.retry;

/**
 * Where a call is in its life.
 */
public enum CallStatus {

    /** An attempt is due or running. */
    PENDING,

    /** An attempt succeeded. */
    SUCCEEDED,

    /** The last allowed attempt failed too. */
    GAVE_UP

}
