package org.verbs4j.provider.emulated;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.codec.Packet;

/**
 * A UDP socket that plays a wire device's peer in a test (a responder, a requester, a CM peer): it binds the peer's
 * IPv4 address on the device's port, sends the packets the test forges, and takes the ones the device sends without
 * blocking, each wait bounded by a deadline.
 */
final class PeerSocket implements AutoCloseable {
    private final DatagramChannel channel;
    private final ByteBuffer in = ByteBuffer.allocate(RoceEndpoint.MAX_PACKET);

    /** Binds {@code ipv4}:{@code port}, with a receive buffer of {@code receiveBuffer} bytes. */
    PeerSocket(byte[] ipv4, int port, int receiveBuffer) throws IOException {
        channel = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
            channel.bind(new InetSocketAddress(InetAddress.getByAddress(ipv4), port));
            channel.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Sends {@code packet} (from its position to its limit) to {@code to}. */
    void send(ByteBuffer packet, SocketAddress to) throws IOException {
        channel.send(packet, to);
    }

    /**
     * The next datagram that comes within {@code ms} milliseconds, or null: a buffer of this socket's (valid until
     * the next call) that holds it from 0 to its position.
     */
    ByteBuffer nextWithin(long ms) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (channel.receive(in.clear()) == null) {
            if (System.nanoTime() - deadline >= 0) {
                return null;
            }
            Thread.sleep(1);
        }
        return in;
    }

    /**
     * The next packet within {@code ms} milliseconds, parsed without its checks (to show one that must not come), or
     * null if none comes.
     */
    Packet packetWithin(long ms) throws IOException, InterruptedException {
        ByteBuffer b = nextWithin(ms);
        if (b == null) {
            return null;
        }
        Packet p = new Packet();
        p.parse(b, b.position(), null, null);
        return p;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
