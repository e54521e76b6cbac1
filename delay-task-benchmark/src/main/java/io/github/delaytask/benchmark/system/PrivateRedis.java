package io.github.delaytask.benchmark.system;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

/**
 * A {@code redis-server} of the benchmark's own, on a free port of 127.0.0.1, without persistence: what its counters
 * show is what the system under test sent and nothing of anyone else's. Needs {@code redis-server} on the path.
 * Closing it shuts it down.
 */
public final class PrivateRedis implements AutoCloseable {

    private final int port;

    private final String runName;

    private final RedisAdmin admin;

    private volatile Process process;

    private PrivateRedis(int port, String runName) throws IOException, InterruptedException {
        this.port = port;
        this.runName = runName;
        this.process = launch(port, runName);
        this.admin = new RedisAdmin("127.0.0.1", port);
    }

    /** @param runName shown in the server's process title */
    public static PrivateRedis start(String runName) throws IOException, InterruptedException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        return new PrivateRedis(port, runName);
    }

    /** End the server, as an outage or a restart does: what it held is gone. */
    public void stop() {
        ChildProcesses.stop(this.process, Duration.ofSeconds(10));
    }

    /** Start the server again, empty, on the same port. */
    public void restart() throws IOException, InterruptedException {
        this.process = launch(this.port, this.runName);
    }

    private static Process launch(int port, String runName) throws IOException, InterruptedException {
        Process process = ChildProcesses.start(new ProcessBuilder(List.of("redis-server", "--port",
                Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--proc-title-template", "{title} " + runName + " {listen-addr}"))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                return process;
            }
            catch (IOException ex) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    ChildProcesses.stop(process, Duration.ofSeconds(5));
                    throw new IllegalStateException("redis-server did not start on port " + port, ex);
                }
                Thread.sleep(50);
            }
        }
    }

    /** The benchmark's own connection to it. */
    public RedisAdmin admin() {
        return this.admin;
    }

    @Override
    public void close() {
        this.admin.close();
        ChildProcesses.stop(this.process, Duration.ofSeconds(10));
    }

}
