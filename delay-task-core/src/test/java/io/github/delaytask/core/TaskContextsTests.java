package io.github.delaytask.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delaytask.DelayTaskException;
import io.github.delaytask.TaskContextPropagator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TaskContextsTests {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private final ThreadLocal<String> tenant = new ThreadLocal<>();

    private final TaskContexts contexts = new TaskContexts(List.of(TaskContextPropagator.of("tenant",
            this.tenant::get, this.tenant::set, this.tenant::remove)));

    @Test
    void theTraceFieldsComeBackInTheirOrderWithValuesThatHoldEqualsSignsAndCommas() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("traceparent", TRACEPARENT);
        fields.put("tracestate", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
        fields.put("baggage", "user=alice;x=1=2");
        assertThat(TaskContexts.traceFields(TaskContexts.NONE.capture(fields))).containsExactlyEntriesOf(fields);
    }

    @Test
    void nothingToCarryIsStoredAsNullAndNullOrForeignTextReadsAsNoFields() {
        assertThat(this.contexts.capture(Map.of())).isNull();
        assertThat(TaskContexts.traceFields(null)).isEmpty();
        assertThat(TaskContexts.traceFields("not a trace context")).isEmpty();
    }

    @Test
    void traceFieldsThatWouldOverflowTheColumnAreLeftOutAndTheOthersKept() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("traceparent", TRACEPARENT);
        fields.put("baggage", "x".repeat(TaskContexts.MAX_LENGTH));
        fields.put("b3", "4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1");
        this.tenant.set("t".repeat(700));
        String stored = this.contexts.capture(fields);
        assertThat(stored).hasSizeLessThanOrEqualTo(TaskContexts.MAX_LENGTH);
        assertThat(TaskContexts.traceFields(stored)).containsOnlyKeys("traceparent", "b3");
        assertThat(restoredTenant(stored)).isEqualTo("t".repeat(700));
    }

    @Test
    void theLargestContextAllowedLeavesRoomForTheTrace() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("traceparent", TRACEPARENT);
        // two vendors' members, 173 characters: the most the trace's share holds beside a traceparent
        fields.put("tracestate", "congo=" + "c".repeat(80) + ",rojo=" + "r".repeat(80));
        this.tenant.set("t".repeat(TaskContexts.MAX_APPLICATION_LENGTH - "ctx:tenant=".length()));
        String stored = this.contexts.capture(fields);
        assertThat(TaskContexts.traceFields(stored)).containsExactlyEntriesOf(fields);
        assertThat(restoredTenant(stored)).hasSize(TaskContexts.MAX_APPLICATION_LENGTH - "ctx:tenant=".length());
    }

    @Test
    void aTraceFieldWhoseNameOrValueWouldBreakTheLineFormIsLeftOut() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("a=b", "1");
        fields.put("line", "one\ntwo");
        fields.put("ctx:tenant", "9");
        fields.put("traceparent", TRACEPARENT);
        String stored = this.contexts.capture(fields);
        assertThat(TaskContexts.traceFields(stored)).containsOnlyKeys("traceparent");
        assertThat(restoredTenant(stored)).as("a trace field cannot pass for a propagator's").isNull();
    }

    @Test
    void anApplicationValueComesBackAsItWasWhateverItHolds() {
        String value = "a=b\nc\\nd\r\\\\e";
        this.tenant.set(value);
        String stored = this.contexts.capture(Map.of("traceparent", TRACEPARENT));
        assertThat(restoredTenant(stored)).isEqualTo(value);
        assertThat(TaskContexts.traceFields(stored)).containsOnlyKeys("traceparent");
    }

    @Test
    void anApplicationContextLongerThanItsShareIsRefusedNamingThePropagators() {
        this.tenant.set("t".repeat(TaskContexts.MAX_APPLICATION_LENGTH));
        assertThatExceptionOfType(DelayTaskException.class).isThrownBy(() -> this.contexts.capture(Map.of()))
            .withMessageContaining("[tenant]")
            .withMessageContaining("taskinfo.trace_context");
    }

    @Test
    void aRunHasTheAddsValueOrNoneWhateverTheThreadHeldAndPutsTheThreadBackAfter() {
        this.tenant.set("7");
        String seven = this.contexts.capture(Map.of());
        this.tenant.remove();
        String none = this.contexts.capture(Map.of("traceparent", TRACEPARENT));
        this.tenant.set("handler thread's own");
        try (TaskContextPropagator.Restored restored = this.contexts.restore(seven)) {
            assertThat(this.tenant.get()).isEqualTo("7");
        }
        assertThat(this.tenant.get()).isEqualTo("handler thread's own");
        try (TaskContextPropagator.Restored restored = this.contexts.restore(none)) {
            assertThat(this.tenant.get()).as("an add without a tenant").isNull();
        }
        try (TaskContextPropagator.Restored restored = this.contexts.restore(null)) {
            assertThat(this.tenant.get()).as("a task stored before the propagator existed").isNull();
        }
        assertThat(this.tenant.get()).isEqualTo("handler thread's own");
        this.tenant.remove();
        try (TaskContextPropagator.Restored restored = this.contexts.restore(seven)) {
            assertThat(this.tenant.get()).isEqualTo("7");
        }
        assertThat(this.tenant.get()).isNull();
    }

    @Test
    void aPropagatorThatFailsToRestoreLeavesTheThreadAsItWas() {
        ThreadLocal<String> user = new ThreadLocal<>();
        TaskContextPropagator first = TaskContextPropagator.of("user", user::get, user::set, user::remove);
        TaskContexts contexts = new TaskContexts(List.of(first, failing("restore")));
        user.set("alice");
        String stored = contexts.capture(Map.of());
        user.set("the thread's own");
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> contexts.restore(stored))
            .withMessage("no restore");
        assertThat(user.get()).isEqualTo("the thread's own");
    }

    @Test
    void aPropagatorThatFailsToPutTheThreadBackLeavesTheOthersPutBackAndSaysSo() {
        ThreadLocal<String> user = new ThreadLocal<>();
        TaskContextPropagator first = TaskContextPropagator.of("user", user::get, user::set, user::remove);
        TaskContexts contexts = new TaskContexts(List.of(first, failing("close")));
        user.set("alice");
        String stored = contexts.capture(Map.of());
        user.remove();
        TaskContextPropagator.Restored restored = contexts.restore(stored);
        assertThat(user.get()).isEqualTo("alice");
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(restored::close).withMessage("no close");
        assertThat(user.get()).as("the next task on this thread must not run as alice").isNull();
    }

    @Test
    void twoPropagatorsOfOneNameOrOneWithANameThatWouldBreakTheTextAreRefused() {
        TaskContextPropagator one = TaskContextPropagator.mdc("user");
        assertThatIllegalArgumentException().isThrownBy(() -> new TaskContexts(List.of(one, one)))
            .withMessageContaining("'mdc.user'");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new TaskContexts(List.of(TaskContextPropagator.of("ten ant", () -> null,
                    (value) -> { }, () -> { }))))
            .withMessageContaining("'ten ant'");
        assertThatIllegalArgumentException().isThrownBy(() -> new TaskContexts(List.of(failing("a=b"))))
            .withMessageContaining("'a=b'");
    }

    /** A propagator named as given, whose restore or close throws when so named. */
    private static TaskContextPropagator failing(String name) {
        return new TaskContextPropagator() {

            @Override
            public String name() {
                return name;
            }

            @Override
            public String capture() {
                return "2";
            }

            @Override
            public Restored restore(String value) {
                if (name.equals("restore")) {
                    throw new IllegalStateException("no restore");
                }
                return () -> {
                    throw new IllegalStateException("no close");
                };
            }

        };
    }

    private String restoredTenant(String stored) {
        try (TaskContextPropagator.Restored restored = this.contexts.restore(stored)) {
            return this.tenant.get();
        }
    }

}
