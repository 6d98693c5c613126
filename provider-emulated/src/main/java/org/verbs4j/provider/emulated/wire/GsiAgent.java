package org.verbs4j.provider.emulated.wire;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.verbs4j.provider.emulated.wire.codec.Packet;
import org.verbs4j.provider.emulated.wire.codec.Reject;

/**
 * What a wire device's QP1 (the GSI QP) hands its datagrams to: the connection manager's agent. The wire package
 * owns this interface so that the endpoint reports up to the connection manager without depending on it.
 */
public interface GsiAgent {
    /**
     * Takes a datagram for QP1, on the endpoint's receiving thread.
     *
     * @param p    the packet's parsed headers
     * @param buf  the datagram, the sender's buffer: an agent copies what it keeps
     * @param from the sender's UDP address
     * @return why the datagram was dropped, or null if it was taken
     */
    Reject onDatagram(Packet p, ByteBuffer buf, InetSocketAddress from);
}
