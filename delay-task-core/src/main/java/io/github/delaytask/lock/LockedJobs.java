package io.github.delaytask.lock;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The {@code @DistributedLock} methods of the application's singleton beans, in the order they were found. Public
 * for the {@code scheduledlocks} endpoint.
 */
public final class LockedJobs {

    private final List<LockedJob> jobs = new CopyOnWriteArrayList<>();

    void add(LockedJob job) {
        this.jobs.add(job);
    }

    public List<LockedJob> all() {
        return List.copyOf(this.jobs);
    }

    /** The jobs locking on a name: one as a rule, several when methods share a lock on purpose. */
    public List<LockedJob> named(String name) {
        return this.jobs.stream().filter((job) -> job.name().equals(name)).toList();
    }

    boolean isEmpty() {
        return this.jobs.isEmpty();
    }

}
