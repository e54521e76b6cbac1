package io.github.delaytask.metrics;

import io.github.delaytask.scheduling.DelayTaskJobs;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The counter {@code delaytask.history.purged}: rows of {@code taskinfo_logs} the history purges of this instance
 * deleted. Registered once every singleton exists, so that metering never creates the jobs bean early. Public for
 * wiring.
 */
public final class PurgedHistoryMeter implements SmartInitializingSingleton {

    static final String NAME = "delaytask.history.purged";

    private final MeterRegistry registry;

    private final ObjectProvider<DelayTaskJobs> jobs;

    public PurgedHistoryMeter(MeterRegistry registry, ObjectProvider<DelayTaskJobs> jobs) {
        this.registry = registry;
        this.jobs = jobs;
    }

    @Override
    public void afterSingletonsInstantiated() {
        this.jobs.ifAvailable((jobs) -> FunctionCounter.builder(NAME, jobs, DelayTaskJobs::purgedHistoryRows)
            .description("Rows of taskinfo_logs the history purge deleted")
            .register(this.registry));
    }

}
