package io.github.delaytask.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delaytask.benchmark.scenario.AddScenario;
import io.github.delaytask.benchmark.scenario.BacklogScenario;
import io.github.delaytask.benchmark.scenario.CrossInstanceScenario;
import io.github.delaytask.benchmark.scenario.DispatchScenario;
import io.github.delaytask.benchmark.scenario.IdleCostScenario;
import io.github.delaytask.benchmark.scenario.LatenessScenario;
import io.github.delaytask.benchmark.scenario.ManyQueuesScenario;
import io.github.delaytask.benchmark.scenario.RedisDownScenario;
import io.github.delaytask.benchmark.scenario.Scenario;
import io.github.delaytask.benchmark.scenario.Size;
import io.github.delaytask.benchmark.scenario.StartupScenario;
import io.github.delaytask.benchmark.scenario.SteadyLoadScenario;
import io.github.delaytask.benchmark.system.ChildProcesses;
import io.github.delaytask.benchmark.system.Database;
import io.github.delaytask.benchmark.system.DbSchedulerSystem;
import io.github.delaytask.benchmark.system.DelayTaskSystem;
import io.github.delaytask.benchmark.system.QueueSystem;
import io.github.delaytask.benchmark.system.RedisAdmin;
import io.github.delaytask.benchmark.system.RedissonSystem;

/**
 * Runs the chosen scenarios on each system in turn, prints the table and writes it as Markdown.
 * <p>
 * {@code mvn -q install -DskipTests && mvn -q -pl delay-task-benchmark spring-boot:run
 * -Dspring-boot.run.arguments="--scenarios=all --size=small"}; {@code --help} lists the options. Every schema,
 * database and Redis key it makes has this run's name in it and is removed at the end.
 */
public final class Benchmark {

    private static final String DEFINITIONS = "How each figure is measured";

    private Benchmark() {
    }

    public static void main(String[] args) throws IOException {
        BenchmarkOptions options = options(args);
        String run = "dtbench_" + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
        Database postgresql = Database.postgresql(options.postgresqlUrl(), options.postgresqlUser(),
                options.postgresqlPassword());
        Database mariadb = Database.mariadb(options.mariadbUrl(), options.mariadbUser(), options.mariadbPassword());
        RedisAdmin redis = new RedisAdmin(options.redisHost(), options.redisPort());
        String keys = "*" + run.replace('_', '-') + "*";
        // what a run stopped half-way (Ctrl-C) leaves; after a whole run there is nothing left to remove. The
        // instance JVMs go first, as their connections would hold up dropping their storage.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ChildProcesses.killAll();
            postgresql.dropLeftovers();
            mariadb.dropLeftovers();
            redis.deleteQuietly(keys);
        }));
        List<QueueSystem> systems = systems(options, postgresql, mariadb, redis, run);
        Report report = new Report(systems.stream().map(QueueSystem::name).toList());
        describeSetup(report, options, postgresql, mariadb, redis);
        run(scenarios(options, redis), systems, report, options.size());
        report.setup("Machine", "load average (1 min) at the end: " + Machine.load());
        systems.forEach((system) -> system.configuration()
            .forEach((line) -> report.setup("Systems", "**" + system.name() + "**: " + line)));
        redis.delete(keys);
        String markdown = report.markdown("delay-task benchmark, size " + options.size().name());
        System.out.println();
        System.out.println(markdown);
        Path out = options.out().toAbsolutePath();
        Files.createDirectories(out.getParent());
        Files.writeString(out, markdown);
        System.out.println("Written to " + out);
        System.exit(0); // Redisson's and Lettuce's threads would keep the JVM up
    }

    private static BenchmarkOptions options(String[] args) {
        if (BenchmarkOptions.wantsHelp(args)) {
            System.out.println(BenchmarkOptions.USAGE);
            System.exit(0);
        }
        try {
            return BenchmarkOptions.parse(args);
        }
        catch (IllegalArgumentException ex) {
            System.err.println(ex.getMessage() + "\n\n" + BenchmarkOptions.USAGE);
            System.exit(2);
            return null;
        }
    }

    /** Each scenario on each system in turn; a failure is noted and the run goes on. */
    private static void run(List<Scenario> scenarios, List<QueueSystem> systems, Report report, Size size) {
        scenarios.forEach((scenario) -> report.setup(DEFINITIONS, scenario.definition()));
        report.setup(DEFINITIONS, String.format("Every measurement starts a new instance of the system with empty "
                + "storage of its own (a schema, a database, Redis keys), runs %,d tasks through it (added singly "
                + "and in batches, due at once) and empties it again, so that what is measured runs compiled code, as in "
                + "an application that has been up for a while (--warm-up-tasks sets how many).", size.warmUpTasks()));
        for (Scenario scenario : scenarios) {
            scenario.rows(report);
            for (QueueSystem system : systems) {
                System.out.printf("%s: %s ...%n", scenario.name(), system.name());
                long start = System.nanoTime();
                try {
                    scenario.run(system, report);
                    System.out.printf("%s: %s done in %d s%n", scenario.name(), system.name(),
                            (System.nanoTime() - start) / 1_000_000_000);
                }
                catch (Exception | AssertionError ex) {
                    ex.printStackTrace();
                    report.note(system.name() + ", " + scenario.name() + ": failed: " + ex);
                }
            }
        }
    }

    private static List<QueueSystem> systems(BenchmarkOptions options, Database postgresql, Database mariadb,
            RedisAdmin redis, String run) {
        List<QueueSystem> systems = new ArrayList<>();
        for (String system : options.systems()) {
            systems.add(switch (system) {
                case "delay-task-postgresql" -> new DelayTaskSystem(postgresql, redis, run);
                case "delay-task-mariadb" -> new DelayTaskSystem(mariadb, redis, run);
                case "delay-task-postgresql-without-redis" ->
                    new DelayTaskSystem(postgresql, redis, run).withoutRedis();
                case "delay-task-mariadb-without-redis" -> new DelayTaskSystem(mariadb, redis, run).withoutRedis();
                case "redisson" -> new RedissonSystem(redis, run);
                case "db-scheduler" -> DbSchedulerSystem.current(postgresql, run);
                case "db-scheduler-best" -> DbSchedulerSystem.highThroughput(postgresql, run);
                default -> throw new IllegalArgumentException(system);
            });
        }
        return systems;
    }

    private static List<Scenario> scenarios(BenchmarkOptions options, RedisAdmin redis) {
        Size size = options.size();
        return List.of(new AddScenario(size), new DispatchScenario(size), new LatenessScenario(size),
                new BacklogScenario(size, redis), new StartupScenario(size), new ManyQueuesScenario(size),
                new IdleCostScenario(size), new CrossInstanceScenario(size), new SteadyLoadScenario(size),
                new RedisDownScenario())
            .stream()
            .filter((scenario) -> options.scenarios().contains(scenario.name()))
            .toList();
    }

    private static void describeSetup(Report report, BenchmarkOptions options, Database postgresql, Database mariadb,
            RedisAdmin redis) {
        report.setup("Machine", "run at " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ", size "
                + options.size().name() + ", scenarios " + options.scenarios());
        Machine.describe().forEach((line) -> report.setup("Machine", line));
        report.setup("Machine", "load average (1 min) at the start: " + Machine.load());
        report.setup("Machine", "Redis " + redis.version() + " on " + redis.host() + ":" + redis.port());
        for (Database database : List.of(postgresql, mariadb)) {
            try {
                report.setup("Machine", database.name() + " " + database.version() + " at " + database.url());
            }
            catch (Exception ex) {
                report.setup("Machine", database.name() + " unreachable at " + database.url() + ": " + ex.getMessage());
            }
        }
        report.setup("Machine", "every system runs in this one JVM, one at a time, beside Redis and the databases "
                + "(but in the scenarios of instance JVMs, which start further JVMs on this machine); "
                + Size.ADD_THREADS + " threads add in the add scenarios, " + Size.PRODUCERS + " elsewhere");
    }

}
