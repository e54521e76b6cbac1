package io.github.delaytask.observation;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.delaytask.DelayTask;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Makes the observations of adds and handler runs, and hands the trace context between them: an add's propagation
 * fields are given to the store, a run's observation continues from the fields stored with its task. Public for
 * wiring.
 * <p>
 * {@link #NONE} observes nothing and costs nothing: no context is made, no field stored.
 */
public final class TaskObservations {

    /** Observes nothing. */
    public static final TaskObservations NONE = new TaskObservations(ObservationRegistry.NOOP, null, null);

    private static final DelayTaskAddObservationConvention DEFAULT_ADD = new DefaultDelayTaskAddObservationConvention();

    private static final DelayTaskListenerObservationConvention DEFAULT_LISTENER =
            new DefaultDelayTaskListenerObservationConvention();

    private final ObservationRegistry registry;

    private final @Nullable DelayTaskAddObservationConvention addConvention;

    private final @Nullable DelayTaskListenerObservationConvention listenerConvention;

    /** Read once, so that the store, the meters and the observations agree for the application's whole life. */
    private final boolean enabled;

    /**
     * @param registry where observations are made
     * @param addConvention the convention of adds, or null for the default
     * @param listenerConvention the convention of handler runs, or null for the default
     */
    public TaskObservations(ObservationRegistry registry, @Nullable DelayTaskAddObservationConvention addConvention,
            @Nullable DelayTaskListenerObservationConvention listenerConvention) {
        this.registry = registry;
        this.enabled = !registry.isNoop();
        this.addConvention = addConvention;
        this.listenerConvention = listenerConvention;
    }

    /** Whether observations are made, and so whether tasks carry a trace context. */
    public boolean enabled() {
        return this.enabled;
    }

    /**
     * Add one task under an observation.
     * @param add stores the task with the propagation fields it is given (none when not observed), returns its id
     * @return the id
     */
    public long observeAdd(int taskType, int priority, Function<Map<String, String>, Long> add) {
        if (!enabled()) {
            return add.apply(Map.of());
        }
        DelayTaskAddContext context = new DelayTaskAddContext(taskType, priority, 1);
        Long id = DelayTaskObservation.ADD
            .observation(this.addConvention, DEFAULT_ADD, () -> context, this.registry)
            .observe(() -> {
                Long taskId = add.apply(context.getCarrier());
                context.setTaskId(taskId);
                return taskId;
            });
        return id;
    }

    /**
     * Add a batch of tasks under one observation, all with its trace context.
     * @param add stores the tasks with the propagation fields it is given (none when not observed), returns their ids
     * @return the ids
     */
    public List<Long> observeAdds(List<DelayTask> tasks, Function<Map<String, String>, List<Long>> add) {
        if (!enabled()) {
            return add.apply(Map.of());
        }
        Integer type = null;
        Integer priority = null;
        if (!tasks.isEmpty()) {
            type = tasks.get(0).getTaskType();
            priority = tasks.get(0).getPriority();
            for (DelayTask task : tasks) {
                type = (type != null && type == task.getTaskType()) ? type : null;
                priority = (priority != null && priority == task.getPriority()) ? priority : null;
            }
        }
        DelayTaskAddContext context = new DelayTaskAddContext(type, priority, tasks.size());
        List<Long> ids = DelayTaskObservation.ADD
            .observation(this.addConvention, DEFAULT_ADD, () -> context, this.registry)
            .observe(() -> add.apply(context.getCarrier()));
        return (ids != null) ? ids : List.of();
    }

    /**
     * Run a handler under an observation that continues the trace stored with its task.
     * @param traceFields the propagation fields stored with the task
     * @param handler the run
     * @return what the handler threw, or null when it returned
     */
    public @Nullable Throwable observeHandler(int taskType, int priority, long taskId, int attempt,
            Map<String, String> traceFields, Handler handler) {
        if (!enabled()) {
            return run(handler);
        }
        DelayTaskListenerContext context = new DelayTaskListenerContext(taskType, priority, taskId, attempt,
                traceFields);
        Observation observation = DelayTaskObservation.LISTENER
            .observation(this.listenerConvention, DEFAULT_LISTENER, () -> context, this.registry)
            .start();
        Throwable failure;
        try (Observation.Scope scope = observation.openScope()) {
            failure = run(handler);
        }
        context.setSucceeded(failure == null);
        if (failure != null) {
            observation.error(failure);
        }
        observation.stop();
        return failure;
    }

    private static @Nullable Throwable run(Handler handler) {
        try {
            handler.run();
            return null;
        }
        catch (Throwable ex) {
            return ex;
        }
    }

    /** A run of a handler. */
    @FunctionalInterface
    public interface Handler {

        /** Runs the handler. */
        void run() throws Exception;

    }

}
