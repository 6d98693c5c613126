package org.verbs4j.provider.emulated.wire.codec;

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

    /** Where the IP identification sits in the masked sequence: after the LRH and four bytes of IPv4 header. */
    private static final int IP_ID_AT = LRH_BYTES + 4;

    private final CRC32 crc = new CRC32();
    /** Per UDP payload length, the basis that solves for the IP identification; made on first use. */
    private IpIdBasis[] bases;
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

    /**
     * The IP identification with which the packet's ICRC checks, or -1 if none does. A UDP socket does not
     * see the IP header, and a sender such as rxe puts a value there that the receiver cannot know; the CRC
     * is linear in the message, so the one 16-bit value that makes the ICRC check, if any, is found by
     * solving 32 equations over GF(2) rather than by trying 65536 values. A packet accepted this way has had
     * 16 bits of its ICRC spent on finding the field: its check is as strong as a 16-bit CRC.
     */
    public int recoverIpId(ByteBuffer pkt, int length, Ipv4Udp ip) {
        int saved = ip.ipId;
        ip.ipId = 0;
        int d = compute(pkt, length, ip) ^ carried(pkt, length);
        ip.ipId = saved;
        if (d == 0) {
            return 0;
        }
        if (bases == null) {
            bases = new IpIdBasis[65536];
        }
        IpIdBasis b = bases[length & 0xffff];
        if (b == null) {
            // The masked sequence: LRH, IPv4 and UDP headers, then the packet without its ICRC.
            b = new IpIdBasis(LRH_BYTES + IPV4_BYTES + UDP_BYTES + length - Opcode.ICRC_BYTES);
            bases[length & 0xffff] = b;
        }
        return b.solve(d);
    }

    /**
     * For one sequence length: how each bit of the IP identification changes the CRC (the same for every
     * message of that length), reduced to an echelon form that {@link #solve} reads.
     */
    private static final class IpIdBasis {
        /** The reduced vector whose highest set bit is its index, or 0. */
        private final int[] pivot = new int[32];
        /** Which identification bits make up that vector. */
        private final int[] combination = new int[32];

        IpIdBasis(int sequenceLength) {
            byte[] zeros = new byte[sequenceLength];
            CRC32 c = new CRC32();
            c.update(zeros);
            int base = (int) c.getValue();
            for (int k = 0; k < 16; k++) {
                int at = IP_ID_AT + (k < 8 ? 1 : 0);
                zeros[at] = (byte) (1 << (k & 7));
                c.reset();
                c.update(zeros);
                zeros[at] = 0;
                insert((int) c.getValue() ^ base, 1 << k);
            }
        }

        private void insert(int v, int mask) {
            for (int bit = 31; bit >= 0 && v != 0; bit--) {
                if ((v >>> bit & 1) == 0) {
                    continue;
                }
                if (pivot[bit] == 0) {
                    pivot[bit] = v;
                    combination[bit] = mask;
                    return;
                }
                v ^= pivot[bit];
                mask ^= combination[bit];
            }
        }

        int solve(int d) {
            int x = 0;
            for (int bit = 31; bit >= 0 && d != 0; bit--) {
                if ((d >>> bit & 1) == 0) {
                    continue;
                }
                if (pivot[bit] == 0) {
                    return -1;
                }
                d ^= pivot[bit];
                x ^= combination[bit];
            }
            return d == 0 ? x : -1;
        }
    }
}
