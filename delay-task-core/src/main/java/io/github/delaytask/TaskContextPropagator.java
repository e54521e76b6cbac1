package io.github.delaytask;

import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Carries one piece of the adding thread's context to the run of the task's handler: captured when
 * {@link DelayTaskService#addTask(DelayTask)} is called, stored with the task, and restored around each run of its
 * handler, on whichever instance runs it and on every retry. Typical pieces are the tenant id a tenant-line plugin
 * reads from a {@code ThreadLocal}, the user, or MDC entries.
 * <p>
 * Declare one as a bean (the starter collects every bean of this type), or list MDC keys in
 * {@code delay-task.context.mdc-keys}. The values are text, stored in the column {@code taskinfo.trace_context}
 * beside the trace context; the values of all propagators of a task take at most 744 characters there, and an add
 * whose context does not fit is refused rather than stored without it. A dead task that is requeued runs with the
 * context of its first add, where the schema's {@code taskinfo_logs} has the column {@code trace_context}.
 */
public interface TaskContextPropagator {

    /**
     * The name the value is stored under: letters, digits, {@code .}, {@code _} and {@code -}, at most 64
     * characters, unique among the application's propagators; the starter refuses to start otherwise.
     */
    String name();

    /**
     * The value on the thread that adds the task.
     * @return the value to carry, or null when the thread has none (the handler then runs without one)
     */
    @Nullable String capture();

    /**
     * Sets the value on the handler's thread before the handler runs.
     * @param value what {@link #capture()} returned when the task was added; null when it returned null, or the task
     * was added before this propagator existed: the handler must then run without a value, whatever the thread held
     * @return what puts the thread back as it was, called once the handler returned or threw
     */
    Restored restore(@Nullable String value);

    /** Puts a handler's thread back as it was before {@link #restore(String)}. */
    @FunctionalInterface
    interface Restored extends AutoCloseable {

        @Override
        void close();

    }

    /**
     * A propagator over a holder of the application's, such as a tenant holder: {@code getter} is read at the add;
     * around the run, {@code setter} is given the value ({@code remover} is called when the add had none), and then
     * the value the thread had before ({@code remover} again when it had none).
     * @param name the name the value is stored under, see {@link #name()}
     * @param getter reads the current thread's value, or null
     * @param setter sets the current thread's value
     * @param remover clears the current thread's value
     * @return the propagator
     */
    static TaskContextPropagator of(String name, Supplier<@Nullable String> getter, Consumer<String> setter,
            Runnable remover) {
        Assert.hasText(name, "Name must not be empty");
        Assert.notNull(getter, "Getter must not be null");
        Assert.notNull(setter, "Setter must not be null");
        Assert.notNull(remover, "Remover must not be null");
        return new TaskContextPropagator() {

            @Override
            public String name() {
                return name;
            }

            @Override
            public @Nullable String capture() {
                return getter.get();
            }

            @Override
            public Restored restore(@Nullable String value) {
                String before = getter.get();
                if (value != null) {
                    setter.accept(value);
                }
                else {
                    remover.run();
                }
                return () -> {
                    if (before != null) {
                        setter.accept(before);
                    }
                    else {
                        remover.run();
                    }
                };
            }

            @Override
            public String toString() {
                return "TaskContextPropagator '" + name + "'";
            }

        };
    }

    /**
     * A propagator of one entry of SLF4J's MDC, stored under the name {@code mdc.<key>}; what
     * {@code delay-task.context.mdc-keys} makes for each key listed.
     * @param key the MDC key, at most 60 characters of those {@link #name()} allows
     * @return the propagator
     */
    static TaskContextPropagator mdc(String key) {
        Assert.hasText(key, "MDC key must not be empty");
        // named in full: SLF4J is an optional dependency, loaded only once an MDC propagator is made
        return of("mdc." + key, () -> org.slf4j.MDC.get(key), (value) -> org.slf4j.MDC.put(key, value),
                () -> org.slf4j.MDC.remove(key));
    }

}
