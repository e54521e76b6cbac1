package io.github.delaytask.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the {@code delaytask.add} observation; a bean of this type replaces the default,
 * {@link DefaultDelayTaskAddObservationConvention}.
 */
public interface DelayTaskAddObservationConvention extends ObservationConvention<DelayTaskAddContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof DelayTaskAddContext;
    }

}
