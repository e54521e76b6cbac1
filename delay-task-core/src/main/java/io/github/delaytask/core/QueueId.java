package io.github.delaytask.core;

/**
 * One queue: the tasks of one type and priority. Public for wiring between the starter's packages.
 * @param taskType the task type
 * @param priority the priority
 */
public record QueueId(int taskType, int priority) {

    /** Parses the form written by {@link #toString()}. */
    public static QueueId parse(String value) {
        int colon = value.indexOf(':');
        return new QueueId(Integer.parseInt(value.substring(0, colon)), Integer.parseInt(value.substring(colon + 1)));
    }

    @Override
    public String toString() {
        return this.taskType + ":" + this.priority;
    }

}
