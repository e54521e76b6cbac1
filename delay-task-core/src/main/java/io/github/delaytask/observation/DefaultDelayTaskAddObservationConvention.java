package io.github.delaytask.observation;

import io.github.delaytask.observation.DelayTaskObservation.HighCardinalityKeys;
import io.github.delaytask.observation.DelayTaskObservation.LowCardinalityKeys;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * The default convention of {@code delaytask.add}: tagged by {@code task.type} and {@code task.priority}, its span
 * named {@code delaytask add}.
 */
public class DefaultDelayTaskAddObservationConvention implements DelayTaskAddObservationConvention {

    /** The value of a key that differs between the tasks of one batch. */
    public static final String MIXED = "mixed";

    @Override
    public String getName() {
        return "delaytask.add";
    }

    @Override
    public String getContextualName(DelayTaskAddContext context) {
        return "delaytask add";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(DelayTaskAddContext context) {
        return KeyValues.of(LowCardinalityKeys.TASK_TYPE.withValue(valueOf(context.getTaskType())),
                LowCardinalityKeys.TASK_PRIORITY.withValue(valueOf(context.getPriority())));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayTaskAddContext context) {
        Long taskId = context.getTaskId();
        KeyValues values = KeyValues.of(HighCardinalityKeys.TASK_COUNT.withValue(Integer.toString(context.getCount())));
        return (taskId != null) ? values.and(HighCardinalityKeys.TASK_ID.withValue(Long.toString(taskId))) : values;
    }

    private static String valueOf(@Nullable Integer value) {
        return (value != null) ? value.toString() : MIXED;
    }

}
