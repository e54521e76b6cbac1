package io.github.delaytask.benchmark.system;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delaytask.autoconfigure.DelayTaskProperties;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * delay-task through its starter, in a Spring Boot application context of its own for each instance (web off), on
 * a database of the given kind and the shared Redis. Settings are the starter's defaults.
 */
public final class DelayTaskSystem implements QueueSystem {

    private final Database database;

    private final RedisAdmin redis;

    private final String namePrefix;

    /** Whether it runs with delay-task.redis.enabled=false: the database alone dispatches. */
    private final boolean withoutRedis;

    private final AtomicInteger instances = new AtomicInteger();

    private volatile List<String> configuration;

    /**
     * @param database where its tables go
     * @param redis the shared Redis
     * @param namePrefix prefix of this run's schemas, databases and keys
     */
    public DelayTaskSystem(Database database, RedisAdmin redis, String namePrefix) {
        this(database, redis, namePrefix, false);
    }

    private DelayTaskSystem(Database database, RedisAdmin redis, String namePrefix, boolean withoutRedis) {
        this.database = database;
        this.redis = redis;
        this.namePrefix = namePrefix;
        this.withoutRedis = withoutRedis;
    }

    /** This system with delay-task.redis.enabled=false, its names apart from this one's. */
    public DelayTaskSystem withoutRedis() {
        return new DelayTaskSystem(this.database, this.redis, this.namePrefix + "_nr", true);
    }

    @Override
    public String name() {
        return "delay-task " + this.database.name() + (this.withoutRedis ? " without Redis" : "");
    }

    @Override
    public List<String> configuration() {
        return (this.configuration != null) ? this.configuration
                : List.of("delay-task starter, default settings" + (this.withoutRedis
                        ? " but delay-task.redis.enabled=false" : "") + " (not started in this run)");
    }

    @Override
    public Instance start(TaskSink sink) throws SQLException {
        String name = storageName(Integer.toString(this.instances.incrementAndGet()));
        Storage storage = this.database.create(name);
        StatementCapture statements = new StatementCapture((sql) -> sql.contains("taskinfo"));
        try {
            ConfigurableApplicationContext context = application(properties(storage.url(), keyPrefix(name)))
                .initializers((ctx) -> {
                    ctx.getBeanFactory().registerSingleton("benchmarkTaskSink", sink);
                    ctx.getBeanFactory().registerSingleton("benchmarkStatements", statements);
                })
                .run();
            if (this.configuration == null) {
                this.configuration = describe(context);
            }
            return new DelayTaskInstance(context, storage, statements, this.redis, keyPrefix(name) + ":*", true);
        }
        catch (RuntimeException ex) {
            storage.close();
            throw ex;
        }
    }

    /**
     * The settings an application needs to run delay-task on the given schema or database; everything else is left
     * at its default.
     */
    public Map<String, Object> properties(String url, String keyPrefix) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.datasource.url", url);
        properties.put("spring.datasource.username", this.database.username());
        properties.put("spring.datasource.password", this.database.password());
        properties.put("spring.data.redis.host", this.redis.host());
        properties.put("spring.data.redis.port", this.redis.port());
        properties.put("delay-task.redis.key-prefix", keyPrefix);
        if (this.withoutRedis) {
            properties.put("delay-task.redis.enabled", false);
        }
        properties.put("delay-task.jdbc.initialize-schema", "always");
        properties.put("mybatis-plus.global-config.banner", false);
        return properties;
    }

    /** This system on another Redis, such as a {@link PrivateRedis}. */
    public DelayTaskSystem onRedis(RedisAdmin other) {
        return new DelayTaskSystem(this.database, other, this.namePrefix, this.withoutRedis);
    }

    /** The prefix of this run's names. */
    public String runName() {
        return this.namePrefix;
    }

    /** An empty schema or database, and the settings of an application that uses it, for other JVMs. */
    public Workspace workspace(String suffix) throws SQLException {
        return workspace(suffix, false);
    }

    /**
     * @param ownDatabase whether to make a database of its own even on PostgreSQL (a schema in the benchmark's
     * database otherwise), for {@link Workspace#transactionsCommitted()}
     */
    public Workspace workspace(String suffix, boolean ownDatabase) throws SQLException {
        String name = storageName(suffix);
        return new Workspace(ownDatabase ? this.database.createDatabase(name) : this.database.create(name),
                keyPrefix(name));
    }

    /** The benchmark's delay-task application, with the given properties ahead of any other source. */
    static SpringApplicationBuilder application(Map<String, Object> properties) {
        return new SpringApplicationBuilder(DelayTaskBenchApplication.class).web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .logStartupInfo(false)
            .registerShutdownHook(false)
            .initializers((context) -> context.getEnvironment()
                .getPropertySources()
                .addFirst(new MapPropertySource("benchmark", properties)));
    }

    private String storageName(String suffix) {
        return this.namePrefix + "_dt_" + this.database.name().toLowerCase(Locale.ROOT) + "_" + suffix;
    }

    private String keyPrefix(String name) {
        return name.replace('_', '-');
    }

    private static List<String> describe(ConfigurableApplicationContext context) {
        DelayTaskProperties properties = context.getBean(DelayTaskProperties.class);
        DelayTaskProperties.Listener listener = properties.getListener();
        int pool;
        try {
            pool = context.getBean(DataSource.class).unwrap(HikariDataSource.class).getMaximumPoolSize();
        }
        catch (SQLException ex) {
            pool = -1;
        }
        List<String> lines = new ArrayList<>();
        lines.add("delay-task starter, default settings: listener.concurrency " + listener.getConcurrency()
                + " handler threads, listener.batch-size " + listener.getBatchSize() + ", listener.poll-interval "
                + listener.getPollInterval().toMillis() + " ms, preload-window "
                + properties.getPreloadWindow().toSeconds() + " s, feed-interval "
                + properties.getFeedInterval().toMillis() + " ms, reload-interval "
                + properties.getReloadInterval().toSeconds() + " s, refresh-interval "
                + properties.getRefreshInterval().toMillis() + " ms, lease " + properties.getLease().toSeconds()
                + " s");
        if (!properties.getRedis().isEnabled()) {
            lines.add("delay-task.redis.enabled=false: the database alone dispatches, looking at idle queues every "
                    + properties.getDatabaseDispatch().getPollInterval().toMillis() + " ms (database-dispatch"
                    + ".poll-interval, its default)");
        }
        lines.add("Spring Boot application context (web off), HikariCP maximum-pool-size " + pool
                + " (Boot's default), Lettuce; one @DelayTaskListener per task kind, doing nothing; "
                + "batched adds with DelayTaskService.addTasks");
        return lines;
    }

    /**
     * A schema or database and a key prefix that instances in other JVMs share, with an instance of this JVM on them
     * if asked for. Closing it drops them.
     */
    public final class Workspace implements AutoCloseable {

        private final Storage storage;

        private final String keyPrefix;

        private Workspace(Storage storage, String keyPrefix) {
            this.storage = storage;
            this.keyPrefix = keyPrefix;
        }

        /** The settings of an application that uses it. */
        public Map<String, Object> properties() {
            return DelayTaskSystem.this.properties(this.storage.url(), this.keyPrefix);
        }

        /**
         * Start an instance of this JVM on it without listeners: it adds tasks and runs the starter's jobs, as an
         * application's web tier would. Closing the instance leaves the workspace as it is.
         */
        public Instance startAdding() {
            Map<String, Object> properties = properties();
            properties.put("delay-task.listener.enabled", false);
            properties.put(DelayTaskBenchApplication.LISTENERS, "none");
            ConfigurableApplicationContext context = application(properties).run();
            if (DelayTaskSystem.this.configuration == null) {
                DelayTaskSystem.this.configuration = describe(context);
            }
            return new DelayTaskInstance(context, this.storage, new StatementCapture((sql) -> false),
                    DelayTaskSystem.this.redis, this.keyPrefix + ":*", false);
        }

        /** See {@link Database#transactionsCommitted}: empty unless it is a PostgreSQL database of its own. */
        public OptionalLong transactionsCommitted() {
            return this.storage.transactionsCommitted();
        }

        @Override
        public void close() {
            this.storage.close();
            DelayTaskSystem.this.redis.delete(this.keyPrefix + ":*");
        }

    }

}
