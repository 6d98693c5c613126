package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.WcStatus;

/**
 * The IPv4 header in a UD receive's GRH area on RoCE v2 (issue 26: a rule written for the survivors of mutation
 * testing of the wire device's responder, {@code WireResponder.fillGrh}; tck/reports/mutation.md). rxe's
 * {@code build_rdma_network_hdr} copies the received packet's own IPv4 header into the last 20 bytes of the 40-byte
 * area, so what a receiver reads there is the header that crossed the network: its checksum verifies, it names
 * UDP, its total length counts the datagram that carried the SEND, and its addresses are the sender's and the
 * receiver's. The transport rule that answers a UD sender from its GRH read only the version and the source.
 */
public abstract class UdGrhRules extends TckArea {
    /** IPv4 (20), UDP (8), BTH (12), DETH (8) and ICRC (4) around a UD SEND's payload. */
    private static final int UD_SEND_OVERHEAD = 20 + 8 + 12 + 8 + 4;
    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected UdGrhRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private static boolean ipv4Mapped(Gid g) {
        return g.subnetPrefix() == 0 && (g.interfaceId() >>> 32) == 0xffffL;
    }

    @Test
    @DisplayName("required_ on RoCE v2 over IPv4, bytes 20 to 39 of a UD receive's GRH area are the packet's IPv4 header, for each of two datagrams of different lengths: its checksum verifies (between two devices), protocol UDP (17), total length 52 + payload (IPv4, UDP, BTH, DETH, ICRC), the sender's source and the receiver's destination address [ibv_post_recv(3) UD GRH; rxe build_rdma_network_hdr; RFC 791 3.1]")
    void required_udGrhIpv4HeaderIsThePackets() {
        assumeQp(QpType.UD);
        Testbed server = tb.peer();
        assumeTrue(tb.portAttributes().linkLayer() == LinkLayer.ETHERNET && ipv4Mapped(tb.gid())
                && ipv4Mapped(server.gid()), "capability: not RoCE v2 over IPv4 (the GID is not IPv4-mapped)");
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 29);
        MemoryRegion dst = p.remoteBuffer(2 * (40 + 64));
        for (int round = 0; round < 2; round++) {
            int length = round == 0 ? 64 : 32;
            long at = round * (40 + 64L);
            p.recvB(round, dst, at, 40 + 64);
            assertEquals(WcStatus.SUCCESS, p.send(10 + round, src, 0, length).status(), "the UD SEND " + round);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the receive " + round).status());
            MemorySegment ip = dst.segment().asSlice(at + 20, 20);
            String what = "the IPv4 header in the GRH area of datagram " + round + " (" + length + " bytes): ";
            assertEquals(0x45, ip.get(ValueLayout.JAVA_BYTE, 0) & 0xff, what + "version 4, 5 words");
            assertEquals(UD_SEND_OVERHEAD + length, ip.get(BE_SHORT, 2) & 0xffff, what + "total length");
            assertEquals(17, ip.get(ValueLayout.JAVA_BYTE, 9) & 0xff, what + "protocol UDP");
            if (tb.isSplit()) {
                // Only a datagram that crossed between two devices: rxe's loopback (one device, as in the soft-RoCE
                // guest) hands the receiver a header that never went through ip_send_check, and its checksum does
                // not verify (seen on Linux 6.1 rxe through ffm and jnr).
                int sum = 0;
                for (int i = 0; i < 20; i += 2) {
                    sum += ip.get(BE_SHORT, i) & 0xffff;
                }
                sum = (sum & 0xffff) + (sum >>> 16);
                sum = (sum & 0xffff) + (sum >>> 16);
                assertEquals(0xffff, sum, what + "the header checksum does not verify");
            }
            assertEquals((int) tb.gid().interfaceId(), ip.get(BE_INT, 12), what + "source address");
            assertEquals((int) server.gid().interfaceId(), ip.get(BE_INT, 16), what + "destination address");
        }
    }
}
