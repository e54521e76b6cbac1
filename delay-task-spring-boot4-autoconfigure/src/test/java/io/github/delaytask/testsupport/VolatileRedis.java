package io.github.delaytask.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import redis.embedded.RedisServer;
import redis.embedded.core.RedisServerBuilder;

import org.springframework.util.FileSystemUtils;

/**
 * A Redis server of the test's own on a free port of 127.0.0.1, without persistence, that the test can restart
 * (coming back empty, as after a crash or a fail-over to an empty replica) or flush; or one that comes back with the
 * last snapshot the test took, as after a fail-over to a replica that missed the last writes.
 */
public final class VolatileRedis implements AutoCloseable {

    private final int port;

    /** Where the snapshot is kept, or null for a server that always comes back empty. */
    private final Path directory;

    private RedisServer server;

    private VolatileRedis(int port, Path directory) {
        this.port = port;
        this.directory = directory;
        this.server = startServer(port, directory);
    }

    public static VolatileRedis start() {
        return new VolatileRedis(FreePort.find(), null);
    }

    /** A server that writes a snapshot only when told ({@link #snapshot()}), and loads it when started again. */
    public static VolatileRedis startWithSnapshots() {
        try {
            return new VolatileRedis(FreePort.find(), Files.createTempDirectory("volatile-redis"));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    public int port() {
        return this.port;
    }

    /** Stop the server, losing every key; {@link #startAgain()} starts a new one on the same port. */
    public synchronized void stop() {
        stopServer();
    }

    /** Start a new server on the port of the stopped one: empty, or with the last snapshot. */
    public synchronized void startAgain() {
        if (!this.server.isActive()) {
            this.server = startServer(this.port, this.directory);
        }
    }

    /** {@code FLUSHALL}. */
    public void flushAll() {
        withConnection((connection) -> connection.sync().flushall());
    }

    /** {@code SAVE}: what the server holds now is what it comes back with after {@link #stop()}. */
    public void snapshot() {
        withConnection((connection) -> connection.sync().save());
    }

    /** Number of keys with the given prefix. */
    public long keyCount(String prefix) {
        return withConnection((connection) -> (long) connection.sync().keys(prefix + "*").size());
    }

    @Override
    public synchronized void close() {
        stopServer();
        if (this.directory != null) {
            FileSystemUtils.deleteRecursively(this.directory.toFile());
        }
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

    private static RedisServer startServer(int port, Path directory) {
        try {
            // no save points: a stop (SIGTERM) writes no snapshot, so the server comes back with the test's last one
            RedisServerBuilder builder = RedisServer.newRedisServer().bind("127.0.0.1").port(port)
                .setting("save \"\"").setting("appendonly no");
            if (directory != null) {
                builder.setting("dir " + directory).setting("dbfilename dump.rdb");
            }
            RedisServer server = builder.build();
            server.start();
            return server;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start a Redis on port " + port, ex);
        }
    }

}
