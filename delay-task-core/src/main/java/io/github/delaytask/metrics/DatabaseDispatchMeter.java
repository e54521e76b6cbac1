package io.github.delaytask.metrics;

import io.github.delaytask.core.Claims;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The gauge {@code delaytask.dispatch.database.queues}: how many queues this instance claims from the database,
 * because Redis does not answer their claims; 0 while Redis answers. Registered once every singleton exists, so that
 * metering never creates the claims bean early. Public for wiring.
 */
public final class DatabaseDispatchMeter implements SmartInitializingSingleton {

    static final String NAME = "delaytask.dispatch.database.queues";

    private final MeterRegistry registry;

    private final ObjectProvider<Claims> claims;

    public DatabaseDispatchMeter(MeterRegistry registry, ObjectProvider<Claims> claims) {
        this.registry = registry;
        this.claims = claims;
    }

    @Override
    public void afterSingletonsInstantiated() {
        this.claims.ifAvailable((claims) -> Gauge.builder(NAME, claims,
                (held) -> held.dispatchedFromDatabase().size())
            .description("Queues this instance claims from the database because Redis does not answer their claims")
            .register(this.registry));
    }

}
