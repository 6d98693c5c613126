package org.verbs4j.provider.emulated.wire;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.verbs4j.provider.emulated.wire.codec.Icrc;
import org.verbs4j.provider.emulated.wire.codec.Ipv4Udp;
import org.verbs4j.provider.emulated.wire.codec.Packet;

/**
 * One sender's packet under construction and what seals it: the datagram buffer (also seen as a segment, for
 * payload copies), the header fields, the ICRC and the IPv4/UDP pseudo header it covers. The requester side
 * ({@link WireTransport}) and the responder side ({@link WireResponder}) each own one; neither is thread-safe.
 */
public final class PacketSender {
    public final ByteBuffer buf = ByteBuffer.allocateDirect(RoceEndpoint.MAX_PACKET).order(ByteOrder.BIG_ENDIAN);
    final MemorySegment bufSegment = MemorySegment.ofBuffer(buf);
    final Packet out = new Packet();
    private final Icrc icrc = new Icrc();
    private final Ipv4Udp ip = new Ipv4Udp();

    /** Starts a packet: its opcode, destination QPN and PSN, with the SE and AckReq bits clear. */
    public Packet begin(int opcode, int destQpn, int psn) {
        Packet p = out;
        p.opcode = opcode;
        p.solicited = false;
        p.ackReq = false;
        p.destQpn = destQpn;
        p.psn = psn;
        return p;
    }

    /** Seals the packet whose headers and payload are in {@link #buf} (ICRC over the pseudo header) and sends it. */
    public void emit(RoceEndpoint endpoint, InetSocketAddress to) {
        ip.set(endpoint.localAddr, endpoint.localPort, RoceEndpoint.ipv4(to), to.getPort());
        int len = out.seal(buf, icrc, ip);
        buf.limit(len).position(0);
        endpoint.send(buf, to);
        buf.clear();
    }
}
