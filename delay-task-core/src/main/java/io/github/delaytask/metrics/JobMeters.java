package io.github.delaytask.metrics;

import io.github.delaytask.scheduling.DelayTaskJobs;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The counters of the starter's jobs on this instance: {@code delaytask.history.purged}, rows of
 * {@code taskinfo_logs} the history purges deleted, and {@code delaytask.feed.rows}, rows of {@code taskinfo} the
 * feed read to bring tasks into Redis. Registered once every singleton exists, so that metering never creates the
 * jobs bean early. Public for wiring.
 */
public final class JobMeters implements SmartInitializingSingleton {

    static final String PURGED = "delaytask.history.purged";

    static final String FED = "delaytask.feed.rows";

    private final MeterRegistry registry;

    private final ObjectProvider<DelayTaskJobs> jobs;

    public JobMeters(MeterRegistry registry, ObjectProvider<DelayTaskJobs> jobs) {
        this.registry = registry;
        this.jobs = jobs;
    }

    @Override
    public void afterSingletonsInstantiated() {
        this.jobs.ifAvailable((jobs) -> {
            FunctionCounter.builder(PURGED, jobs, DelayTaskJobs::purgedHistoryRows)
                .description("Rows of taskinfo_logs the history purge deleted")
                .register(this.registry);
            // its cost: about the tasks entering the preload window, and the whole window once per full pass
            FunctionCounter.builder(FED, jobs, DelayTaskJobs::fedRows)
                .description("Rows of taskinfo the feed read to bring tasks into Redis")
                .register(this.registry);
        });
    }

}
