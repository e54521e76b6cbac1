package io.github.delaytask.sample;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.RedisServer;

import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts a Redis server of the app's own, so that the sample runs on a machine with nothing installed.
 * <p>
 * It runs before any bean is created, so Boot's Redis connection factory is built for it. It listens on a free port
 * rather than 6379, where a developer's own Redis often runs already. It keeps nothing on disk: with delay-task the
 * database is the truth and Redis only holds what is due soon, which the starter loads again after a restart.
 * Set {@code sample.embedded-redis.enabled=false} (the {@code real} profile does) to use the Redis that
 * {@code spring.data.redis.*} names. Registered in {@code META-INF/spring.factories}, so {@code @SpringBootTest}
 * applies it too.
 */
public class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** Whether to start the embedded Redis; true unless set. */
    public static final String ENABLED_PROPERTY = "sample.embedded-redis.enabled";

    private static final String HOST = "127.0.0.1";

    private static final Logger logger = LoggerFactory.getLogger(EmbeddedRedisInitializer.class);

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        if (!environment.getProperty(ENABLED_PROPERTY, Boolean.class, true)) {
            return;
        }
        int port = findFreePort();
        RedisServer server = start(port);
        // First, so that it wins over spring.data.redis.* from any other source while the embedded Redis is on.
        environment.getPropertySources()
            .addFirst(new MapPropertySource("embeddedRedis",
                    Map.of("spring.data.redis.host", HOST, "spring.data.redis.port", port)));
        ServerLifecycle lifecycle = new ServerLifecycle(server);
        context.getBeanFactory().registerSingleton("embeddedRedisServer", lifecycle);
        context.addApplicationListener(lifecycle);
        logger.info("Started embedded Redis on {}:{} (set {}=false to use another Redis)", HOST, port,
                ENABLED_PROPERTY);
    }

    private static RedisServer start(int port) {
        try {
            RedisServer server = RedisServer.newRedisServer()
                .bind(HOST)
                .port(port)
                .setting("save \"\"")
                .setting("appendonly no")
                .build();
            server.start();
            return server;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start the embedded Redis on port " + port + "; set "
                    + ENABLED_PROPERTY + "=false and spring.data.redis.* to use another Redis", ex);
        }
    }

    private static int findFreePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not find a free port for the embedded Redis", ex);
        }
    }

    /**
     * Stops the server in the last phase of shutdown, after everything that may still use Redis then: the web
     * server's graceful shutdown, the starter's listeners, the connection factory. A context whose refresh fails stops
     * no lifecycle, so the {@link ApplicationFailedEvent} stops the server then; the library's own JVM shutdown hook
     * is the last resort.
     */
    private static final class ServerLifecycle implements SmartLifecycle, ApplicationListener<ApplicationFailedEvent> {

        private final RedisServer server;

        ServerLifecycle(RedisServer server) {
            this.server = server;
        }

        @Override
        public void start() {
            // Started by the initializer already: the connection factory needs it before any lifecycle starts.
        }

        @Override
        public void stop() {
            if (!this.server.isActive()) {
                return;
            }
            try {
                this.server.stop();
                logger.info("Stopped embedded Redis");
            }
            catch (IOException ex) {
                logger.warn("Could not stop the embedded Redis", ex);
            }
        }

        @Override
        public boolean isRunning() {
            return this.server.isActive();
        }

        @Override
        public int getPhase() {
            return Integer.MIN_VALUE;
        }

        @Override
        public void onApplicationEvent(ApplicationFailedEvent event) {
            stop();
        }

    }

}
