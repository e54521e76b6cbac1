package io.github.delaytask;

/**
 * State of a task, as kept in the {@code status} column of {@code taskinfo_logs}.
 */
public enum TaskStatus {

    /** Waiting for its execute time, or running. */
    SCHEDULED(0),

    /** Its handler returned, or it was taken by {@link DelayTaskService#poll(int, int)}. */
    EXECUTED(1),

    /** Cancelled before it ran; it never runs. */
    CANCELLED(2),

    /** Its handler failed on every attempt allowed; it is not run again. */
    DEAD(3);

    private final int code;

    TaskStatus(int code) {
        this.code = code;
    }

    /** Value stored in the database. */
    public int code() {
        return this.code;
    }

    /**
     * The status stored as the given value.
     * @param code a value of the {@code status} column
     * @return the status
     * @throws IllegalArgumentException if no status has that value
     */
    public static TaskStatus fromCode(int code) {
        for (TaskStatus status : values()) {
            if (status.code == code) {
                return status;
            }
        }
        throw new IllegalArgumentException("Unknown task status " + code);
    }

}
