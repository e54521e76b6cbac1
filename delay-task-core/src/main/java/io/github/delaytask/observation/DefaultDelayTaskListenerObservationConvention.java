package io.github.delaytask.observation;

import io.github.delaytask.observation.DelayTaskObservation.HighCardinalityKeys;
import io.github.delaytask.observation.DelayTaskObservation.LowCardinalityKeys;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * The default convention of {@code delaytask.listener}: tagged by {@code task.type}, {@code task.priority} and
 * {@code outcome} ({@code success} or {@code failure}), as the {@code delaytask.listener} timer is without
 * observations, and {@code unknown} while the handler runs (the tags of the {@code delaytask.listener.active} long
 * task timer); its span named {@code delaytask listener}.
 */
public class DefaultDelayTaskListenerObservationConvention implements DelayTaskListenerObservationConvention {

    @Override
    public String getName() {
        return "delaytask.listener";
    }

    @Override
    public String getContextualName(DelayTaskListenerContext context) {
        return "delaytask listener";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(DelayTaskListenerContext context) {
        return KeyValues.of(LowCardinalityKeys.TASK_TYPE.withValue(Integer.toString(context.getTaskType())),
                LowCardinalityKeys.TASK_PRIORITY.withValue(Integer.toString(context.getPriority())),
                LowCardinalityKeys.OUTCOME.withValue(outcome(context.getSucceeded())));
    }

    private static String outcome(@Nullable Boolean succeeded) {
        if (succeeded == null) {
            return "unknown";
        }
        return succeeded ? "success" : "failure";
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayTaskListenerContext context) {
        return KeyValues.of(HighCardinalityKeys.TASK_ID.withValue(Long.toString(context.getTaskId())),
                HighCardinalityKeys.ATTEMPT.withValue(Integer.toString(context.getAttempt())));
    }

}
