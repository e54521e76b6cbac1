package io.github.delaytask.sample;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample's scenarios with its "real" profile: the Redis and PostgreSQL running on 127.0.0.1, in a schema of the
 * test's own that is dropped afterwards.
 */
@Tag("real-services")
@ActiveProfiles("real")
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class SampleApplicationRealServicesTests extends AbstractSampleApplicationTests {

    private static final String DATABASE = "jdbc:postgresql://127.0.0.1:5432/test";

    // static because @DynamicPropertySource is: one schema for the class's one application context
    private static final String SCHEMA = "sample_it_" + UUID.randomUUID().toString().substring(0, 8);

    private static final String KEY_PREFIX = "sample-test-" + UUID.randomUUID();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
        registry.add("delay-task.redis.key-prefix", () -> KEY_PREFIX);
        registry.add("spring.datasource.url", () -> DATABASE + "?currentSchema=" + SCHEMA);
        registry.add("spring.datasource.username", () -> "postgres");
    }

    @AfterAll
    static void removeSchemaAndKeys() {
        execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> keys = connection.sync().keys(KEY_PREFIX + ":*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(new String[0]));
            }
        }
        finally {
            client.shutdown();
        }
    }

    private static void execute(String sql) {
        try (Connection connection = DriverManager.getConnection(DATABASE, "postgres", "")) {
            connection.createStatement().execute(sql);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

}
