package io.github.delaytask.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.sun.management.OperatingSystemMXBean;

/**
 * What the figures were measured on.
 */
final class Machine {

    private Machine() {
    }

    static List<String> describe() {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        List<String> lines = new ArrayList<>();
        lines.add("nproc: " + Runtime.getRuntime().availableProcessors() + (cpuModel().map((m) -> " (" + m + ")")
            .orElse("")));
        lines.add(String.format("memory: %.1f GiB", os.getTotalMemorySize() / (double) (1L << 30)));
        lines.add("OS: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        lines.add("JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + ", max heap " + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB, "
                + ManagementFactory.getRuntimeMXBean().getInputArguments());
        return lines;
    }

    /** The one-minute load average: others' work on a shared machine shows here. */
    static String load() {
        return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static java.util.Optional<String> cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo"))
                .stream()
                .filter((line) -> line.startsWith("model name"))
                .map((line) -> line.substring(line.indexOf(':') + 1).strip())
                .findFirst();
        }
        catch (IOException | RuntimeException ex) {
            return java.util.Optional.empty();
        }
    }

}
