package io.github.delaytask.testsupport;

import java.io.IOException;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import redis.embedded.RedisServer;

/**
 * A Redis server of the test's own on a free port of 127.0.0.1, without persistence, that the test can restart
 * (coming back empty, as after a crash or a fail-over to an empty replica) or flush.
 */
public final class VolatileRedis implements AutoCloseable {

    private final int port;

    private RedisServer server;

    private VolatileRedis(int port) {
        this.port = port;
        this.server = startServer(port);
    }

    public static VolatileRedis start() {
        return new VolatileRedis(FreePort.find());
    }

    public int port() {
        return this.port;
    }

    /** Stop the server, losing every key; {@link #startAgain()} starts a new one on the same port. */
    public synchronized void stop() {
        stopServer();
    }

    /** Start a new server, empty, on the port of the stopped one. */
    public synchronized void startAgain() {
        if (!this.server.isActive()) {
            this.server = startServer(this.port);
        }
    }

    /** {@code FLUSHALL}. */
    public void flushAll() {
        withConnection((connection) -> connection.sync().flushall());
    }

    /** Number of keys with the given prefix. */
    public long keyCount(String prefix) {
        return withConnection((connection) -> (long) connection.sync().keys(prefix + "*").size());
    }

    @Override
    public synchronized void close() {
        stopServer();
    }

    private <T> T withConnection(java.util.function.Function<StatefulRedisConnection<String, String>, T> action) {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + this.port);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return action.apply(connection);
        }
        finally {
            client.shutdown();
        }
    }

    private void stopServer() {
        try {
            this.server.stop();
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not stop the Redis on port " + this.port, ex);
        }
    }

    private static RedisServer startServer(int port) {
        try {
            RedisServer server = RedisServer.newRedisServer().bind("127.0.0.1").port(port)
                .setting("save \"\"").setting("appendonly no").build();
            server.start();
            return server;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start a Redis on port " + port, ex);
        }
    }

}
