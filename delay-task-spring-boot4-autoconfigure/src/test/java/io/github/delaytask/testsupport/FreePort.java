package io.github.delaytask.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A free TCP port on 127.0.0.1.
 */
public final class FreePort {

    private FreePort() {
    }

    public static int find() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

}
