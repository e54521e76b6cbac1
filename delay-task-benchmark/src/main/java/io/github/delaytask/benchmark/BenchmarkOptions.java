package io.github.delaytask.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delaytask.benchmark.scenario.Size;

/**
 * The command line: {@code --name=value} options, each with a default that suits the services on 127.0.0.1.
 */
record BenchmarkOptions(List<String> scenarios, List<String> systems, Size size, Path out, String redisHost,
        int redisPort, String postgresqlUrl, String postgresqlUser, String postgresqlPassword, String mariadbUrl,
        String mariadbUser, String mariadbPassword) {

    static final List<String> SCENARIOS = List.of("add", "dispatch", "lateness", "backlog", "startup", "many-queues",
            "idle-cost", "cross-instance", "steady-load", "redis-down");

    static final List<String> SYSTEMS = List.of("delay-task-postgresql", "delay-task-mariadb", "redisson",
            "db-scheduler", "db-scheduler-best");

    /** Systems run only when named: not part of "all". */
    static final List<String> NAMED_SYSTEMS = List.of("delay-task-postgresql-without-redis",
            "delay-task-mariadb-without-redis");

    static final String USAGE = """
            Options (all optional):
              --scenarios=all|add,dispatch,lateness,backlog,startup,many-queues,idle-cost,cross-instance,steady-load,
                          redis-down
                  many-queues     a burst over 64 queues, on 1 and on 4 instance JVMs: tasks/s, tasks per claim
                  idle-cost       1 instance JVM, 64 listeners, no task, on a redis-server of its own: commands/s
                  cross-instance  added by one instance, run by another JVM, due 20 ms after the add: lateness
                  steady-load     4 instance JVMs, 64 queues, 5,000/s for 60 s: lateness, claims and commits per task
                  redis-down      1 instance, tasks due at 100/s, its own redis-server ended for 30 s: lateness
                  (these five: delay-task only; they start JVMs or, for idle-cost and redis-down, redis-server)
              --systems=all|delay-task-postgresql,delay-task-mariadb,redisson,db-scheduler,db-scheduler-best
                  db-scheduler-best: lock-and-fetch limits 1.0, 4.0, as its README recommends for high throughput
                  also, only when named: delay-task-postgresql-without-redis, delay-task-mariadb-without-redis
                  (delay-task.redis.enabled=false, every other setting at its default)
              --size=small|full                      full: the sizes of issues #6 and #14 (~45 min here; small ~20 min)
              --dispatch-tasks=N --backlog-tasks=N --lateness-seconds=N --warm-up-tasks=N   override one size
              --out=target/benchmark-results.md     the report as Markdown (relative to the module)
              --redis=127.0.0.1:6379
              --postgresql-url=jdbc:postgresql://127.0.0.1:5432/test --postgresql-user=postgres --postgresql-password=
              --mariadb-url=jdbc:mariadb://127.0.0.1:3306/test --mariadb-user=root --mariadb-password=
            """;

    static BenchmarkOptions parse(String... args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("Unexpected argument '" + arg + "'");
            }
            int equals = arg.indexOf('=');
            options.put((equals > 0) ? arg.substring(2, equals) : arg.substring(2),
                    (equals > 0) ? arg.substring(equals + 1) : "");
        }
        List<String> known = List.of("scenarios", "systems", "size", "out", "redis", "postgresql-url",
                "postgresql-user", "postgresql-password", "mariadb-url", "mariadb-user", "mariadb-password",
                "dispatch-tasks", "backlog-tasks", "lateness-seconds", "warm-up-tasks", "help");
        options.keySet().stream().filter((name) -> !known.contains(name)).findFirst().ifPresent((name) -> {
            throw new IllegalArgumentException("Unknown option --" + name);
        });
        Size size = Size.named(options.getOrDefault("size", "small"));
        if (options.containsKey("warm-up-tasks")) {
            size = size.withWarmUpTasks(Integer.parseInt(options.get("warm-up-tasks")));
        }
        if (options.containsKey("dispatch-tasks")) {
            size = size.withDispatchTasks(Integer.parseInt(options.get("dispatch-tasks")));
        }
        if (options.containsKey("backlog-tasks")) {
            size = size.withBacklogTasks(Integer.parseInt(options.get("backlog-tasks")));
        }
        if (options.containsKey("lateness-seconds")) {
            size = size.withLatenessDuration(Duration.ofSeconds(Long.parseLong(options.get("lateness-seconds"))));
        }
        String redis = options.getOrDefault("redis", "127.0.0.1:6379");
        int colon = redis.lastIndexOf(':');
        return new BenchmarkOptions(list(options.getOrDefault("scenarios", "all"), SCENARIOS, "scenario"),
                list(options.getOrDefault("systems", "all"), SYSTEMS, NAMED_SYSTEMS, "system"), size,
                Path.of(options.getOrDefault("out", "target/benchmark-results.md")), redis.substring(0, colon),
                Integer.parseInt(redis.substring(colon + 1)),
                options.getOrDefault("postgresql-url", "jdbc:postgresql://127.0.0.1:5432/test"),
                options.getOrDefault("postgresql-user", "postgres"), options.getOrDefault("postgresql-password", ""),
                options.getOrDefault("mariadb-url", "jdbc:mariadb://127.0.0.1:3306/test"),
                options.getOrDefault("mariadb-user", "root"), options.getOrDefault("mariadb-password", ""));
    }

    static boolean wantsHelp(String... args) {
        return Arrays.asList(args).contains("--help");
    }

    private static List<String> list(String value, List<String> all, String what) {
        return list(value, all, List.of(), what);
    }

    /** @param named those chosen only by name, after the others */
    private static List<String> list(String value, List<String> all, List<String> named, String what) {
        if (value.equals("all")) {
            return all;
        }
        List<String> known = new ArrayList<>(all);
        known.addAll(named);
        List<String> chosen = Arrays.stream(value.split(",")).map(String::strip).toList();
        chosen.stream().filter((name) -> !known.contains(name)).findFirst().ifPresent((name) -> {
            throw new IllegalArgumentException("Unknown " + what + " '" + name + "'; one of " + known);
        });
        return known.stream().filter(chosen::contains).toList();
    }

}
