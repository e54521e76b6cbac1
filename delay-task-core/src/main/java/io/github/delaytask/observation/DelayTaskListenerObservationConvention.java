package io.github.delaytask.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the {@code delaytask.listener} observation; a bean of this type replaces the default,
 * {@link DefaultDelayTaskListenerObservationConvention}.
 */
public interface DelayTaskListenerObservationConvention extends ObservationConvention<DelayTaskListenerContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof DelayTaskListenerContext;
    }

}
