package org.verbs4j.provider.emulated.internal.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * The invariant CRC of a RoCE v2 packet (IBA vol. 1 annex A17.3.3), computed as Linux rxe computes it in
 * {@code rxe_icrc.c}: the IEEE CRC-32 over eight bytes of ones (the masked LRH an InfiniBand packet would
 * have), the IPv4 header with TOS, TTL and header checksum set to all ones, the UDP header with its
 * checksum set to all ones, the BTH with its FECN, BECN and reserved bits (the byte before the
 * destination QPN) set to all ones, then the extended headers, the payload and the pad bytes. rxe seeds
 * its CRC with {@code 0xdebb20e3}, which is the CRC of those eight bytes of ones, and complements the
 * result, so the value is the standard CRC-32 of the whole masked sequence. It travels least significant
 * byte first (rxe stores the 32-bit value in the host order of x86).
 *
 * <p>Not thread-safe: one instance per sending or receiving thread. Nothing here allocates.
 */
public final class Icrc {
    private static final int LRH_BYTES = 8;
    private static final int IPV4_BYTES = 20;
    private static final int UDP_BYTES = 8;
    private static final int PSEUDO_BYTES = LRH_BYTES + IPV4_BYTES + UDP_BYTES + Opcode.BTH_BYTES;

    private final CRC32 crc = new CRC32();
    private final ByteBuffer pseudo = ByteBuffer.allocate(PSEUDO_BYTES).order(ByteOrder.BIG_ENDIAN);

    /**
     * The ICRC of the packet in {@code pkt} from index 0 (the BTH) to {@code length - 4}, sent in a UDP
     * datagram of {@code length} bytes with the addressing in {@code ip}. The buffer's position, limit and
     * order are unchanged.
     */
    public int compute(ByteBuffer pkt, int length, Ipv4Udp ip) {
        ByteBuffer p = pseudo;
        for (int i = 0; i < LRH_BYTES; i++) {
            p.put(i, (byte) 0xff);
        }
        int o = LRH_BYTES;
        p.put(o, (byte) 0x45);                                   // version 4, 5 words
        p.put(o + 1, (byte) 0xff);                               // TOS, masked
        p.putShort(o + 2, (short) (IPV4_BYTES + UDP_BYTES + length));
        p.putShort(o + 4, (short) ip.ipId);
        p.putShort(o + 6, (short) (ip.dontFragment ? 0x4000 : 0));
        p.put(o + 8, (byte) 0xff);                               // TTL, masked
        p.put(o + 9, (byte) 17);                                 // UDP
        p.putShort(o + 10, (short) 0xffff);                      // header checksum, masked
        p.putInt(o + 12, ip.srcAddr);
        p.putInt(o + 16, ip.dstAddr);
        o += IPV4_BYTES;
        p.putShort(o, (short) ip.srcPort);
        p.putShort(o + 2, (short) ip.dstPort);
        p.putShort(o + 4, (short) (UDP_BYTES + length));
        p.putShort(o + 6, (short) 0xffff);                       // UDP checksum, masked
        o += UDP_BYTES;
        for (int i = 0; i < Opcode.BTH_BYTES; i++) {
            p.put(o + i, pkt.get(i));
        }
        p.put(o + 4, (byte) 0xff);                               // FECN, BECN, resv6a, masked
        crc.reset();
        crc.update(p.array(), 0, PSEUDO_BYTES);
        int pos = pkt.position();
        int lim = pkt.limit();
        pkt.limit(length - Opcode.ICRC_BYTES).position(Opcode.BTH_BYTES);
        crc.update(pkt);
        pkt.limit(lim).position(pos);
        return (int) crc.getValue();
    }

    /** Computes the ICRC and writes it into the packet's last four bytes. */
    public void write(ByteBuffer pkt, int length, Ipv4Udp ip) {
        pkt.putInt(length - Opcode.ICRC_BYTES, Integer.reverseBytes(compute(pkt, length, ip)));
    }

    /** The ICRC carried in the packet's last four bytes, as {@link #compute} returns it. */
    public static int carried(ByteBuffer pkt, int length) {
        return Integer.reverseBytes(pkt.getInt(length - Opcode.ICRC_BYTES));
    }

    /** Whether the packet's ICRC matches it. */
    public boolean check(ByteBuffer pkt, int length, Ipv4Udp ip) {
        return compute(pkt, length, ip) == carried(pkt, length);
    }
}
