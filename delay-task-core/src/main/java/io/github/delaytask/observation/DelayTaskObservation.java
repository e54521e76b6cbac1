package io.github.delaytask.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of delay-task, made when {@code delay-task.observation.enabled} is true: {@code delaytask.add}
 * around each call that adds tasks, and {@code delaytask.listener} around each run of a listener's handler. The
 * listener's observation continues the trace of the add that stored its task, however much later it runs.
 * <p>
 * Change the names or the key values with a {@link DelayTaskAddObservationConvention} or
 * {@link DelayTaskListenerObservationConvention} bean, or a global convention registered on the
 * {@code ObservationRegistry}.
 */
public enum DelayTaskObservation implements ObservationDocumentation {

    /** A call of {@code addTask} or {@code addTasks}: the producer side, whose trace context is stored. */
    ADD {

        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultDelayTaskAddObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return new KeyName[] { LowCardinalityKeys.TASK_TYPE, LowCardinalityKeys.TASK_PRIORITY };
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return new KeyName[] { HighCardinalityKeys.TASK_ID, HighCardinalityKeys.TASK_COUNT };
        }

    },

    /** A run of a listener's handler: the consumer side, a child of the add's span. */
    LISTENER {

        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultDelayTaskListenerObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return new KeyName[] { LowCardinalityKeys.TASK_TYPE, LowCardinalityKeys.TASK_PRIORITY,
                    LowCardinalityKeys.OUTCOME };
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return new KeyName[] { HighCardinalityKeys.TASK_ID, HighCardinalityKeys.ATTEMPT };
        }

    };

    /** Keys whose values are few: they tag the timers of the observations. */
    public enum LowCardinalityKeys implements KeyName {

        /** The task type; {@code mixed} for a batch of several types. */
        TASK_TYPE("task.type"),

        /** The priority; {@code mixed} for a batch of several priorities. */
        TASK_PRIORITY("task.priority"),

        /**
         * Of a handler run: {@code success} when it returned, {@code failure} when it threw, {@code unknown} while
         * it runs.
         */
        OUTCOME("outcome");

        private final String key;

        LowCardinalityKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return this.key;
        }

    }

    /** Keys whose values are many: they go on spans only. */
    public enum HighCardinalityKeys implements KeyName {

        /** The id of the task added or run; of an add of one task only. */
        TASK_ID("task.id"),

        /** How many tasks a call of {@code addTasks} added. */
        TASK_COUNT("task.count"),

        /** The number of the run of a handler, from 1. */
        ATTEMPT("task.attempt");

        private final String key;

        HighCardinalityKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return this.key;
        }

    }

}
