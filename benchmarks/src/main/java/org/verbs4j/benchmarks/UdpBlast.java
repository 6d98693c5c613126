package org.verbs4j.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Locale;

/**
 * The raw baseline of the wire device's benchmark ({@code benchmarks/wire}): a JDK {@link DatagramChannel} blast
 * between two JVMs, with the same socket setup as the wire device's (IPv4, 4 MiB buffers, one blocking channel,
 * a direct buffer). The sender sends {@code MESSAGE}-byte messages as datagrams of at most {@code DATAGRAM}
 * bytes for {@code SECONDS}, then a few 1-byte end markers; the receiver counts what arrives and prints one
 * JSON line: bytes and datagrams received, the seconds between the first and last, MB/s (2^20 bytes per second,
 * as perftest) and the message rate in millions per second.
 *
 * <pre>
 * java -cp benchmarks.jar org.verbs4j.benchmarks.UdpBlast recv ADDRESS:PORT MESSAGE DATAGRAM
 * java -cp benchmarks.jar org.verbs4j.benchmarks.UdpBlast send FROM_ADDRESS TO_ADDRESS:PORT MESSAGE DATAGRAM SECONDS
 * </pre>
 *
 * <p>UDP has no flow control: the receiver's rate is what arrived, and the sender's count shows what was lost.
 */
public final class UdpBlast {
    private static final int SOCKET_BUFFER = 4 << 20;

    private UdpBlast() {}

    public static void main(String[] args) throws IOException {
        if (args.length >= 4 && args[0].equals("recv")) {
            receive(address(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        } else if (args.length >= 6 && args[0].equals("send")) {
            send(address(args[1] + ":0"), address(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Double.parseDouble(args[5]));
        } else {
            System.err.println("usage: UdpBlast recv ADDRESS:PORT MESSAGE DATAGRAM | "
                    + "send FROM TO:PORT MESSAGE DATAGRAM SECONDS");
            System.exit(2);
        }
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    private static DatagramChannel open(InetSocketAddress local) throws IOException {
        DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
        ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
        ch.bind(local);
        return ch;
    }

    private static void receive(InetSocketAddress local, int message, int datagram) throws IOException {
        try (DatagramChannel ch = open(local)) {
            System.out.println("ready");
            System.out.flush();
            ByteBuffer buf = ByteBuffer.allocateDirect(65536);
            long bytes = 0;
            long datagrams = 0;
            long first = 0;
            long last = 0;
            while (true) {
                buf.clear();
                ch.receive(buf);
                int n = buf.position();
                if (n == 1) {
                    break;
                }
                last = System.nanoTime();
                if (datagrams == 0) {
                    first = last;
                }
                datagrams++;
                bytes += n;
            }
            double seconds = Math.max(1, last - first) / 1e9;
            System.out.printf(Locale.ROOT, "{\"message\": %d, \"datagram\": %d, \"bytes\": %d, \"datagrams\": %d, "
                    + "\"seconds\": %.4f, \"MBps\": %.2f, \"msgRateMpps\": %.6f}%n", message, datagram, bytes,
                    datagrams, seconds, bytes / seconds / (1 << 20), bytes / (double) message / seconds / 1e6);
        }
    }

    private static void send(InetSocketAddress local, InetSocketAddress to, int message, int datagram,
                             double seconds) throws IOException {
        try (DatagramChannel ch = open(local)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(datagram);
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long sent = 0;
            while (System.nanoTime() < end) {
                for (int left = message; left > 0; left -= datagram) {
                    buf.clear().limit(Math.min(left, datagram));
                    ch.send(buf, to);
                    sent++;
                }
            }
            ByteBuffer marker = ByteBuffer.allocate(1);
            for (int i = 0; i < 20; i++) {
                ch.send(marker.clear(), to);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            System.out.println("{\"sent\": " + sent + "}");
        }
    }
}
