package io.github.delaytask.benchmark.scenario;

import java.time.Duration;

import org.HdrHistogram.Histogram;

/**
 * How figures are written in the table.
 */
final class Format {

    private Format() {
    }

    static String rate(double perSecond) {
        return String.format("%,.0f/s", perSecond);
    }

    static String millis(double millis) {
        return (millis < 10) ? String.format("%.1f", millis) : String.format("%,.0f", millis);
    }

    static String millis(Duration duration) {
        return millis(duration.toNanos() / 1e6);
    }

    static String bytes(long bytes) {
        return (Math.abs(bytes) < 1_000_000) ? String.format("%,.0f kB", bytes / 1e3)
                : String.format("%,.1f MB", bytes / 1e6);
    }

    /** p50 / p99 / max of a histogram of microseconds, in milliseconds. */
    static String lateness(Histogram micros) {
        return String.format("%s / %s / %s", millis(micros.getValueAtPercentile(50) / 1000.0),
                millis(micros.getValueAtPercentile(99) / 1000.0), millis(micros.getMaxValue() / 1000.0));
    }

    static String count(long count) {
        return String.format("%,d", count);
    }

}
