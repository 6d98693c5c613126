package org.verbs4j.tools.perf;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.verbs4j.tools.cli.UsageException;

/**
 * The TCP connection of a two-process run, carrying {@link PerftestWire}'s fixed-length messages. As in perftest's
 * {@code ctx_xchg_data}, in every exchange the client writes first and then reads, the server reads and then
 * writes.
 */
final class PerftestChannel implements ControlChannel {
    private static final int CONNECT_RETRY_MILLIS = 5000;
    /** How long the closing side waits for the peer's own "done" and end of stream. */
    private static final int LINGER_MILLIS = 2000;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final boolean client;

    private PerftestChannel(Socket socket, boolean client) throws IOException {
        this.socket = socket;
        this.client = client;
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Waits for one client on {@code port}, as perftest's server (IPv4, any address, SO_REUSEADDR); runs
     * {@code listening} once the port is bound.
     */
    static PerftestChannel accept(int port, Runnable listening) {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(port), 1);
            listening.run();
            return new PerftestChannel(ss.accept(), false);
        } catch (IOException e) {
            throw new UsageException("cannot wait for a client on TCP port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Connects, retrying for a few seconds so a client started just before its server still finds it. */
    static PerftestChannel connect(String host, int port) {
        long until = System.nanoTime() + CONNECT_RETRY_MILLIS * 1_000_000L;
        while (true) {
            try {
                return new PerftestChannel(new Socket(host, port), true);
            } catch (ConnectException e) {
                if (System.nanoTime() > until) {
                    throw new UsageException("no perftest or verbs4j perf server at " + host + ":" + port + ": "
                            + e.getMessage(), e);
                }
                sleep(100);
            } catch (IOException e) {
                throw new UsageException("cannot reach " + host + ":" + port + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public boolean isClient() {
        return client;
    }

    @Override
    public void write(byte[] msg) {
        try {
            out.write(msg);
            out.flush();
        } catch (IOException e) {
            throw new UsageException("the peer closed the connection (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public byte[] read(int n) {
        byte[] b = new byte[n];
        try {
            in.readFully(b);
            return b;
        } catch (EOFException e) {
            throw new UsageException("the peer closed the connection where " + n + " bytes of perftest's "
                    + "handshake were expected; does it run the same test with the same flags?", e);
        } catch (IOException e) {
            throw new UsageException("the connection to the peer failed: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean hasInput() {
        try {
            return in.available() > 0;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * perftest's last words: "done", then the connection ends. The peer's own "done" is read and dropped, so that
     * closing with unread bytes does not reset the connection under it.
     */
    @Override
    public void done() {
        write(PerftestWire.DONE);
        try {
            socket.shutdownOutput();
            socket.setSoTimeout(LINGER_MILLIS);
            while (in.read() >= 0) {
                // The peer's "done"; it closes after it.
            }
        } catch (SocketTimeoutException e) {
            // A peer that keeps the connection open is no failure of the run.
        } catch (IOException e) {
            // Neither is one that resets it.
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // Closing is best effort once the run is over.
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UsageException("interrupted while connecting");
        }
    }
}
