package io.github.delaytask.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 that a test can cut and restore, to make a server unreachable for a while.
 * <p>
 * {@link #cut()} closes every open connection and closes each new one as soon as it is accepted, so clients fail
 * fast, as with a server that went down; {@link #restore()} lets new connections through again. {@link #stall()}
 * keeps every connection open but holds what either side sends, as with a server paused by {@code CLIENT PAUSE}, a
 * fail-over or a partition, until {@link #resume()} lets it through.
 */
public final class TcpProxy implements AutoCloseable {

    private final InetSocketAddress target;

    private final ServerSocket server;

    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    private final AtomicInteger refused = new AtomicInteger();

    private volatile boolean cut;

    /** Guards {@link #stalled}, and wakes the pumps when it ends. */
    private final Object gate = new Object();

    private boolean stalled;

    private TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        Thread acceptor = new Thread(this::accept, "tcp-proxy-" + this.server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Start a proxy to {@code host:port} on a free port of 127.0.0.1.
     */
    public static TcpProxy start(String host, int port) {
        try {
            return new TcpProxy(new InetSocketAddress(host, port));
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start a proxy to " + host + ":" + port, ex);
        }
    }

    public int port() {
        return this.server.getLocalPort();
    }

    /** Close every connection and refuse new ones until {@link #restore()}. */
    public void cut() {
        this.cut = true;
        this.open.forEach(TcpProxy::closeQuietly);
        this.open.clear();
    }

    /** Let new connections through again. */
    public void restore() {
        this.cut = false;
    }

    /** Hold whatever either side sends, on every connection, until {@link #resume()}; connections stay open. */
    public void stall() {
        synchronized (this.gate) {
            this.stalled = true;
        }
    }

    /** Let what was held, and what follows, through. */
    public void resume() {
        synchronized (this.gate) {
            this.stalled = false;
            this.gate.notifyAll();
        }
    }

    private void awaitFlowing() throws IOException {
        synchronized (this.gate) {
            while (this.stalled) {
                try {
                    this.gate.wait();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while stalled");
                }
            }
        }
    }

    /** How many connections were refused while cut. */
    public int refusedConnections() {
        return this.refused.get();
    }

    @Override
    public void close() {
        resume();
        cut();
        closeQuietly(this.server);
    }

    private void accept() {
        while (!this.server.isClosed()) {
            Socket client;
            try {
                client = this.server.accept();
            }
            catch (IOException ex) {
                return; // closed
            }
            if (this.cut) {
                this.refused.incrementAndGet();
                closeQuietly(client);
                continue;
            }
            try {
                Socket upstream = new Socket();
                upstream.connect(this.target, 5000);
                this.open.add(client);
                this.open.add(upstream);
                if (this.cut) {
                    // cut while this connection was being set up
                    this.open.remove(client);
                    this.open.remove(upstream);
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                pump(client, upstream);
                pump(upstream, client);
            }
            catch (IOException ex) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) != -1) {
                    awaitFlowing();
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
            catch (IOException ex) {
                // one side closed or was cut
            }
            finally {
                closeQuietly(from);
                closeQuietly(to);
                this.open.remove(from);
                this.open.remove(to);
            }
        }, "tcp-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(java.io.Closeable closeable) {
        try {
            closeable.close();
        }
        catch (IOException ex) {
            // closing anyway
        }
    }

}
