package io.github.delaytask.benchmark.system;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.DataFormatException;

import org.HdrHistogram.Histogram;

/**
 * What instance JVMs counted since their last reset, one JVM's or the sum of several.
 * @param handled handler calls
 * @param firstMicros the first handler call, wall clock in epoch microseconds ({@link Long#MAX_VALUE} if none)
 * @param lastMicros the last handler call, likewise ({@link Long#MIN_VALUE} if none)
 * @param claims claim statements sent (see {@link StatementCounter})
 * @param transactions database transactions (see {@link StatementCounter})
 * @param lateness handler start minus execute time, in microseconds
 */
public record InstanceFigures(long handled, long firstMicros, long lastMicros, long claims, long transactions,
        Histogram lateness) {

    InstanceFigures plus(InstanceFigures other) {
        Histogram sum = this.lateness.copy();
        sum.add(other.lateness);
        return new InstanceFigures(this.handled + other.handled, Math.min(this.firstMicros, other.firstMicros),
                Math.max(this.lastMicros, other.lastMicros), this.claims + other.claims,
                this.transactions + other.transactions, sum);
    }

    /** Handler calls per claim statement, or 0 if there was none. */
    public double tasksPerClaim() {
        return (this.claims > 0) ? (double) this.handled / this.claims : 0;
    }

    /** As one line of {@code name=value} pairs, the lateness compressed and in Base64. */
    String line() {
        ByteBuffer buffer = ByteBuffer.allocate(this.lateness.getNeededByteBufferCapacity());
        int length = this.lateness.encodeIntoCompressedByteBuffer(buffer);
        String histogram = Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
        return "handled=" + this.handled + " first=" + this.firstMicros + " last=" + this.lastMicros + " claims="
                + this.claims + " transactions=" + this.transactions + " lateness=" + histogram;
    }

    static InstanceFigures parse(String line) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String pair : line.strip().split(" ")) {
            int equals = pair.indexOf('=');
            values.put(pair.substring(0, equals), pair.substring(equals + 1));
        }
        try {
            Histogram lateness = Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(values.get("lateness"))), 0);
            return new InstanceFigures(Long.parseLong(values.get("handled")), Long.parseLong(values.get("first")),
                    Long.parseLong(values.get("last")), Long.parseLong(values.get("claims")),
                    Long.parseLong(values.get("transactions")), lateness);
        }
        catch (DataFormatException ex) {
            throw new IllegalStateException("Unreadable figures of an instance JVM: " + line, ex);
        }
    }

}
