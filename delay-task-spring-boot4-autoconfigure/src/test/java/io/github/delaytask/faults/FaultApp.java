package io.github.delaytask.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delaytask.autoconfigure.DelayTaskAutoConfiguration;
import io.github.delaytask.autoconfigure.DelayTaskLockAutoConfiguration;
import io.github.delaytask.redis.WakeUps;
import io.github.delaytask.testsupport.ImportDataAutoConfiguration;
import io.github.delaytask.testsupport.TestBackend;
import io.github.delaytask.testsupport.WorkerProcess;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The application of the fault tests: delay-task on Redis and a database, with a listener that records every run
 * of its tasks in {@code fault_runs}. Tests run it in their own JVM (as the producer of tasks, or as a consumer)
 * and, through {@link #main}, as worker JVMs that they can kill.
 */
@Configuration(proxyBeanMethods = false)
@ImportDataAutoConfiguration
@ImportAutoConfiguration({ DelayTaskLockAutoConfiguration.class, DelayTaskAutoConfiguration.class })
@Import({ RecordingListener.class, DelayedAdder.class })
public class FaultApp {

    /** What a worker prints once its listeners run. */
    static final String READY = "fault-worker ready";

    private static final List<String> WORKER_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

    public static void main(String[] args) throws InterruptedException {
        WorkerProcess.exitWhenParentDies();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(FaultApp.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .run(args);
        // ready once it hears wake-ups too: a task a test adds at once would otherwise wait for an idle look
        WakeUps wakeUps = context.getBeanProvider(WakeUps.class).getIfAvailable();
        if (wakeUps != null && context.getEnvironment().getProperty("delay-task.listener.enabled", Boolean.class, true)) {
            // but not forever: a test may start its worker while Redis cannot be reached
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!wakeUps.listening() && System.nanoTime() < until) {
                Thread.sleep(10);
            }
        }
        System.out.println(READY);
    }

    /**
     * Properties pointing the application at a backend, quiet, with its schema created by the test; later entries
     * of {@code overrides} ({@code key=value}) win.
     */
    static Map<String, String> properties(TestBackend backend, String... overrides) {
        Map<String, String> properties = new LinkedHashMap<>();
        backend.properties().forEach((property) -> put(properties, property));
        put(properties, "delay-task.jdbc.initialize-schema=never");
        put(properties, "spring.main.banner-mode=off");
        for (String override : overrides) {
            put(properties, override);
        }
        return properties;
    }

    /** A runner of the application in this JVM. */
    static ApplicationContextRunner runner(Map<String, String> properties) {
        return new ApplicationContextRunner().withUserConfiguration(FaultApp.class)
            .withPropertyValues(properties.entrySet()
                .stream()
                .map((entry) -> entry.getKey() + "=" + entry.getValue())
                .toArray(String[]::new));
    }

    /** Start the application in a JVM of its own; it records its runs as {@code workerId}. */
    static WorkerProcess startWorker(String workerId, Map<String, String> properties) {
        return startWorker(workerId, properties, Map.of());
    }

    /** Start the application in a JVM of its own, with more environment variables. */
    static WorkerProcess startWorker(String workerId, Map<String, String> properties,
            Map<String, String> environment) {
        List<String> args = new ArrayList<>();
        properties.forEach((key, value) -> args.add("--" + key + "=" + value));
        args.add("--" + RecordingListener.WORKER_ID + "=" + workerId);
        args.add("--logging.level.root=WARN");
        args.add("--logging.level.io.github.delaytask=" + System.getProperty("fault.worker-log-level", "INFO"));
        return WorkerProcess.start("fault-" + workerId, FaultApp.class, WORKER_JVM_OPTIONS, args, environment);
    }

    private static void put(Map<String, String> properties, String property) {
        int separator = property.indexOf('=');
        properties.put(property.substring(0, separator), property.substring(separator + 1));
    }

}
