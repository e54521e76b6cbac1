package io.github.delaytask.listener;

/**
 * The handler capacity of an instance that claims share: threads and the tasks claimed ahead of them.
 */
interface Capacity {

    /**
     * Reserve room for between one and {@code max} tasks, waiting up to {@code timeoutMillis} for the first.
     * @return how many were reserved; 0 if there was no room in time
     */
    int acquire(int max, long timeoutMillis) throws InterruptedException;

    /** Give back room reserved and not used, or used by a task that ended. */
    void release(int count);

}
