package io.github.delaytask.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TraceContextsTests {

    @Test
    void theFieldsOfAPropagatorComeBackInTheirOrderWithValuesThatHoldEqualsSignsAndCommas() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        fields.put("tracestate", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
        fields.put("baggage", "user=alice;x=1=2");
        String stored = TraceContexts.encode(fields);
        assertThat(TraceContexts.decode(stored)).containsExactlyEntriesOf(fields);
    }

    @Test
    void noFieldsAreStoredAsNullAndNullOrForeignTextReadsAsNoFields() {
        assertThat(TraceContexts.encode(Map.of())).isNull();
        assertThat(TraceContexts.encode(null)).isNull();
        assertThat(TraceContexts.decode(null)).isEmpty();
        assertThat(TraceContexts.decode("not a trace context")).isEmpty();
    }

    @Test
    void fieldsThatWouldOverflowTheColumnAreLeftOutAndTheTraceItselfKept() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        fields.put("baggage", "x".repeat(TraceContexts.MAX_LENGTH));
        fields.put("b3", "4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1");
        String stored = TraceContexts.encode(fields);
        assertThat(stored).hasSizeLessThanOrEqualTo(TraceContexts.MAX_LENGTH);
        assertThat(TraceContexts.decode(stored)).containsOnlyKeys("traceparent", "b3");
    }

    @Test
    void aFieldWhoseNameOrValueWouldBreakTheLineFormIsLeftOut() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("a=b", "1");
        fields.put("line", "one\ntwo");
        fields.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(TraceContexts.decode(TraceContexts.encode(fields))).containsOnlyKeys("traceparent");
    }

}
