package org.verbs4j.provider.emulated.wire.codec;

/**
 * The IPv4 and UDP header fields a RoCE v2 packet's ICRC covers: source and destination address and port,
 * the IP identification and the don't-fragment flag. The ICRC masks TOS, TTL and both checksums, and the
 * lengths follow from the packet, so these fields are all that the receiver of a UDP datagram, which never
 * sees the IP header, must know to check it. Mutable and reused: one per sender and one per receiver.
 */
public final class Ipv4Udp {
    /** The UDP port RoCE v2 uses (IANA). */
    public static final int ROCE_V2_PORT = 4791;

    public int srcAddr;
    public int dstAddr;
    public int srcPort;
    public int dstPort = ROCE_V2_PORT;
    /**
     * The IP identification field. A Linux UDP socket that is not connected sends 0 when it sets DF with
     * {@code IP_PMTUDISC_DO} (the JDK's {@code IP_DONTFRAGMENT}).
     */
    public int ipId;
    public boolean dontFragment = true;

    /** Sets every field; returns this. */
    public Ipv4Udp set(int srcAddr, int srcPort, int dstAddr, int dstPort) {
        this.srcAddr = srcAddr;
        this.srcPort = srcPort;
        this.dstAddr = dstAddr;
        this.dstPort = dstPort;
        return this;
    }
}
