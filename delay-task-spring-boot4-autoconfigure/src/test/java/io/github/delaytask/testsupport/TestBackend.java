package io.github.delaytask.testsupport;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.github.delaytask.autoconfigure.DelayTaskAutoConfiguration;
import io.github.delaytask.autoconfigure.DelayTaskLockAutoConfiguration;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import redis.embedded.RedisServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A Redis and a database for one test class, with names of its own, removed again on close.
 * <p>
 * {@link #embedded()} is the zero-setup default (an embedded Redis on a free port and an in-memory H2);
 * {@link #mariaDb()} and {@link #postgreSql()} use the services running on 127.0.0.1, in a database or schema
 * created for the test.
 */
public abstract class TestBackend implements AutoCloseable {

    private final String keyPrefix = "delay-task-test-" + UUID.randomUUID().toString().substring(0, 8);

    private final String redisHost;

    private final int redisPort;

    private TestBackend(String redisHost, int redisPort) {
        this.redisHost = redisHost;
        this.redisPort = redisPort;
    }

    public static TestBackend embedded() {
        RedisServer server = startEmbeddedRedis();
        return new H2("127.0.0.1", server.ports().get(0), null, null, server::stop);
    }

    public static TestBackend mariaDb() {
        String database = "delaytask_it_" + UUID.randomUUID().toString().substring(0, 8);
        return new OnServices("jdbc:mariadb://127.0.0.1:3306/test", "jdbc:mariadb://127.0.0.1:3306/" + database,
                "root", "CREATE DATABASE " + database, "DROP DATABASE IF EXISTS " + database);
    }

    public static TestBackend postgreSql() {
        String schema = "delaytask_it_" + UUID.randomUUID().toString().substring(0, 8);
        return new OnServices("jdbc:postgresql://127.0.0.1:5432/test",
                "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + schema, "postgres", "CREATE SCHEMA " + schema,
                "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    /**
     * Redis servers the test started itself, such as a cluster or a master with Sentinels, and an in-memory H2.
     * @param redisProperties the {@code spring.data.redis.*} properties reaching the servers
     * @param masters the masters running now, where keys are listed and deleted (a fail-over changes them)
     * @param servers closed with this backend
     */
    public static TestBackend h2(List<String> redisProperties, Supplier<List<RedisURI>> masters,
            AutoCloseable servers) {
        return new H2("127.0.0.1", 0, redisProperties, masters, servers);
    }

    public String keyPrefix() {
        return this.keyPrefix;
    }

    public String redisHost() {
        return this.redisHost;
    }

    public int redisPort() {
        return this.redisPort;
    }

    public abstract String jdbcUrl();

    public abstract String jdbcUsername();

    /** Spring properties pointing an application at this backend. */
    public List<String> properties() {
        List<String> properties = new ArrayList<>(redisProperties());
        properties.add("spring.datasource.url=" + jdbcUrl());
        properties.add("spring.datasource.username=" + jdbcUsername());
        properties.add("spring.datasource.password=");
        properties.add("delay-task.redis.key-prefix=" + this.keyPrefix);
        properties.add("delay-task.jdbc.initialize-schema=always");
        return properties;
    }

    /** The {@code spring.data.redis.*} properties. */
    protected List<String> redisProperties() {
        return List.of("spring.data.redis.host=" + this.redisHost, "spring.data.redis.port=" + this.redisPort);
    }

    /** The servers holding the keys. */
    protected List<RedisURI> redisMasters() {
        return List.of(RedisURI.create(this.redisHost, this.redisPort));
    }

    /**
     * An application on this backend: Redis, a data source with transactions, Jackson, MyBatis-Plus and delay-task,
     * as Spring Boot would configure them.
     */
    public ApplicationContextRunner applicationRunner() {
        return applicationRunner(properties());
    }

    /** {@link #applicationRunner()} with the given properties instead of {@link #properties()}. */
    public ApplicationContextRunner applicationRunner(List<String> properties) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.REDIS, BootLine.DATA_SOURCE,
                    BootLine.TRANSACTION_MANAGER, BootLine.TRANSACTION,
                    BootLine.JACKSON, BootLine.MYBATIS_PLUS,
                    DelayTaskAutoConfiguration.class))
            .withPropertyValues(properties.toArray(new String[0]));
    }

    /**
     * An application on this backend's database with no Redis at all: no Redis connection, nor its auto-configuration.
     */
    public ApplicationContextRunner applicationRunnerWithoutRedis() {
        List<String> properties = new ArrayList<>(properties());
        properties.removeAll(redisProperties());
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE, BootLine.TRANSACTION_MANAGER,
                    BootLine.TRANSACTION, BootLine.JACKSON, BootLine.MYBATIS_PLUS,
                    DelayTaskLockAutoConfiguration.class, DelayTaskAutoConfiguration.class))
            .withPropertyValues(properties.toArray(new String[0]));
    }

    /** Run statements on the database, for set-up and checks. */
    public void execute(String... statements) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl(), jdbcUsername(), "");
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Delete every Redis key under this backend's prefix (a test's stand-in for Redis losing its data). */
    public void deleteRedisKeys() {
        deleteRedisKeys(this.keyPrefix);
    }

    /** Delete every Redis key under the given prefix, on the servers of this backend. */
    public void deleteRedisKeys(String prefix) {
        // one key at a time: keys of different hash tags cannot go in one DEL on a cluster
        forEachKey(prefix, (redis, key) -> redis.del(key));
    }

    /** Every Redis key under this backend's prefix. */
    public Set<String> redisKeys() {
        Set<String> keys = new HashSet<>();
        forEachKey(this.keyPrefix, (redis, key) -> keys.add(key));
        return Set.copyOf(keys);
    }

    /**
     * Visit the keys under a prefix with SCAN, whose signature every Lettuce version of both Boot lines shares (the
     * return type of KEYS changed), so that these tests also run on a newer Boot than they were compiled for.
     */
    private void forEachKey(String prefix, BiConsumer<RedisCommands<String, String>, String> action) {
        for (RedisURI master : redisMasters()) {
            RedisClient client = RedisClient.create(master);
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> redis = connection.sync();
                ScanCursor cursor = ScanCursor.INITIAL;
                do {
                    KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(prefix + ":*"));
                    page.getKeys().forEach((key) -> action.accept(redis, key));
                    cursor = page;
                }
                while (!cursor.isFinished());
            }
            finally {
                client.shutdown();
            }
        }
    }

    @Override
    public void close() {
        deleteRedisKeys();
    }

    private static RedisServer startEmbeddedRedis() {
        try {
            RedisServer server = RedisServer.newRedisServer().bind("127.0.0.1").port(FreePort.find())
                .setting("save \"\"").setting("appendonly no").build();
            server.start();
            return server;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start an embedded Redis", ex);
        }
    }

    /** An in-memory H2, beside Redis servers the test started itself. */
    private static final class H2 extends TestBackend {

        /** Null for those of this backend's host and port; the same for {@link #masters}. */
        private final List<String> redisProperties;

        private final Supplier<List<RedisURI>> masters;

        private final AutoCloseable servers;

        private final String database = "delaytask_" + UUID.randomUUID().toString().replace("-", "");

        H2(String redisHost, int redisPort, List<String> redisProperties, Supplier<List<RedisURI>> masters,
                AutoCloseable servers) {
            super(redisHost, redisPort);
            this.redisProperties = (redisProperties != null) ? List.copyOf(redisProperties) : null;
            this.masters = masters;
            this.servers = servers;
        }

        @Override
        protected List<String> redisProperties() {
            return (this.redisProperties != null) ? this.redisProperties : super.redisProperties();
        }

        @Override
        protected List<RedisURI> redisMasters() {
            return (this.masters != null) ? this.masters.get() : super.redisMasters();
        }

        @Override
        public String jdbcUrl() {
            return "jdbc:h2:mem:" + this.database + ";DB_CLOSE_DELAY=-1";
        }

        @Override
        public String jdbcUsername() {
            return "sa";
        }

        @Override
        public void close() {
            try {
                execute("SHUTDOWN");
            }
            finally {
                try {
                    this.servers.close();
                }
                catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            }
        }

    }

    /** A database or schema of its own on one of the services of 127.0.0.1, beside the Redis there. */
    private static final class OnServices extends TestBackend {

        private final String serverUrl;

        private final String jdbcUrl;

        private final String username;

        private final String drop;

        /**
         * @param serverUrl where to create and drop the test's database or schema
         * @param jdbcUrl the test's database or schema
         */
        OnServices(String serverUrl, String jdbcUrl, String username, String create, String drop) {
            super("127.0.0.1", 6379);
            this.serverUrl = serverUrl;
            this.jdbcUrl = jdbcUrl;
            this.username = username;
            this.drop = drop;
            onServer(create);
        }

        @Override
        public String jdbcUrl() {
            return this.jdbcUrl;
        }

        @Override
        public String jdbcUsername() {
            return this.username;
        }

        @Override
        public void close() {
            try {
                super.close();
            }
            finally {
                onServer(this.drop);
            }
        }

        private void onServer(String sql) {
            try (Connection connection = DriverManager.getConnection(this.serverUrl, this.username, "");
                    Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
            catch (SQLException ex) {
                throw new IllegalStateException(ex);
            }
        }

    }

}
