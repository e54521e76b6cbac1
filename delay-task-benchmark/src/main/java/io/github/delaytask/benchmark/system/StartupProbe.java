package io.github.delaytask.benchmark.system;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The main class of a JVM of the start-up scenario: starts the benchmark's delay-task application once, with or
 * without delay-task's auto-configurations, prints how long that took and exits.
 * <p>
 * Arguments: {@code with} or {@code without}, then {@code name=value} properties.
 */
public final class StartupProbe {

    /** Printed before the figures, so that the benchmark finds them among whatever else is printed. */
    public static final String MARKER = "startup-probe:";

    private StartupProbe() {
    }

    public static void main(String[] args) {
        boolean withStarter = args[0].equals("with");
        Map<String, Object> properties = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            int equals = args[i].indexOf('=');
            properties.put(args[i].substring(0, equals), args[i].substring(equals + 1));
        }
        if (!withStarter) {
            properties.put("spring.autoconfigure.exclude", delayTaskAutoConfigurations());
        }
        long start = System.nanoTime();
        ConfigurableApplicationContext context = DelayTaskSystem.application(properties).run();
        long contextMillis = (System.nanoTime() - start) / 1_000_000;
        long uptimeMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        context.close();
        System.out.println(MARKER + " context=" + contextMillis + " uptime=" + uptimeMillis);
        System.exit(0);
    }

    /** What the starter brings, read from its imports file, so that the list stays true as it grows. */
    private static String delayTaskAutoConfigurations() {
        return ImportCandidates.load(AutoConfiguration.class, StartupProbe.class.getClassLoader())
            .getCandidates()
            .stream()
            .filter((name) -> name.startsWith("io.github.delaytask."))
            .collect(Collectors.joining(","));
    }

}
