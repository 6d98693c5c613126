package org.verbs4j.provider.emulated.wire.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PacketCodecTest {
    private static final HexFormat HEX = HexFormat.of();
    private final Icrc icrc = new Icrc();

    /** IPv4 address a.b.c.d as an int. */
    private static int ip(int a, int b, int c, int d) {
        return a << 24 | b << 16 | c << 8 | d;
    }

    private static ByteBuffer hex(String s) {
        return ByteBuffer.wrap(HEX.parseHex(s.replace(" ", "")));
    }

    @Test
    @DisplayName("The ICRC matches a CNP captured from a ConnectX-4 Lx (scapy's test/contrib/roce.uts)")
    void icrcOfNicCapture() {
        // UDP payload of the capture: BTH (opcode 0x81 CNP, BECN, QPN 0x118), 16 reserved bytes, ICRC.
        ByteBuffer pkt = hex("8100ffff 40000118 00000000" + "00".repeat(16) + "82fd002a");
        Ipv4Udp addr = new Ipv4Udp().set(ip(10, 0, 17, 1), 0, ip(10, 0, 18, 1), 4791);
        addr.ipId = 0x718c;
        addr.dontFragment = true;
        assertTrue(icrc.check(pkt, pkt.capacity(), addr), "the NIC's ICRC");
        // The IP identification is covered by the ICRC: another value fails.
        addr.ipId = 0;
        assertEquals(false, icrc.check(pkt, pkt.capacity(), addr));
    }

    @Test
    @DisplayName("The IP identification a UDP socket cannot see is recovered from the ICRC, and a damaged packet has none")
    void recoversIpIdentification() {
        ByteBuffer pkt = hex("8100ffff 40000118 00000000" + "00".repeat(16) + "82fd002a");
        Ipv4Udp addr = new Ipv4Udp().set(ip(10, 0, 17, 1), 0, ip(10, 0, 18, 1), 4791);
        assertEquals(0x718c, icrc.recoverIpId(pkt, pkt.capacity(), addr), "the NIC's identification");
        assertEquals(0, addr.ipId, "the addressing is left as it was");
        Random r = new Random(5);
        int recovered = 0;
        for (int i = 0; i < 200; i++) {
            int id = r.nextInt(65536);
            Packet p = random(r, Opcode.RC | Opcode.SEND_ONLY, 0);
            p.payloadLength = r.nextInt(1500);
            ByteBuffer buf = ByteBuffer.allocate(1600);
            int off = p.writeHeaders(buf);
            for (int j = 0; j < p.payloadLength; j++) {
                buf.put(off + j, (byte) r.nextInt());
            }
            addr.ipId = id;
            int len = p.seal(buf, icrc, addr);
            addr.ipId = 0;
            if (icrc.recoverIpId(buf, len, addr) == id) {
                recovered++;
            }
        }
        assertEquals(200, recovered);
        pkt.put(20, (byte) 1);
        assertEquals(-1, icrc.recoverIpId(pkt, pkt.capacity(), addr), "a changed payload byte");
    }

    @Test
    @DisplayName("A UC SEND_ONLY with pad bytes (scapy's example) parses to its fields, its ICRC checks, and it re-encodes to its bytes")
    void ucSendOnlyExample() {
        ByteBuffer pkt = hex("24 60 ffff 000000d3 00cf1710"
                + "4630818be28935d90e9a955054 01be885e50 0000" + "78f353f3");
        Ipv4Udp addr = new Ipv4Udp().set(ip(192, 168, 0, 7), 49152, ip(192, 168, 0, 7), 4791);
        addr.ipId = 1144;
        Packet p = new Packet();
        assertNull(p.parse(pkt, pkt.capacity(), icrc, addr), "scapy's ICRC checks");
        assertEquals(Opcode.UC | Opcode.SEND_ONLY, p.opcode);
        assertTrue(p.migReq);
        assertEquals(2, p.padCount);
        assertEquals(211, p.destQpn);
        assertEquals(13571856, p.psn);
        assertEquals(18, p.payloadLength);
        assertEquals(12, p.payloadOffset());
        ByteBuffer out = ByteBuffer.allocate(64);
        int off = p.writeHeaders(out);
        out.put(off, pkt, off, p.payloadLength);
        int len = p.seal(out, icrc, addr);
        assertEquals(pkt.capacity(), len);
        assertArrayEquals(pkt.array(), java.util.Arrays.copyOf(out.array(), len), "the same bytes, ICRC included");
    }

    @Test
    @DisplayName("The ICRC ignores the masked fields (FECN, BECN, reserved bits of the BTH) and covers every other")
    void icrcMasks() {
        Packet p = new Packet();
        p.opcode = Opcode.RC | Opcode.RDMA_WRITE_ONLY;
        p.destQpn = 0x11;
        p.psn = 7;
        p.va = 0x1000;
        p.rkey = 0x1234;
        p.dmaLength = 5;
        p.payloadLength = 5;
        ByteBuffer buf = ByteBuffer.allocate(128);
        p.writeHeaders(buf);
        Ipv4Udp addr = new Ipv4Udp().set(ip(127, 0, 0, 1), 50000, ip(127, 0, 0, 2), 4791);
        int len = p.seal(buf, icrc, addr);
        assertTrue(icrc.check(buf, len, addr));
        buf.put(4, (byte) (buf.get(4) ^ 0xff));
        assertTrue(icrc.check(buf, len, addr), "FECN, BECN and resv6a are masked");
        buf.put(4, (byte) (buf.get(4) ^ 0xff));
        for (int i = 0; i < len - 4; i++) {
            if (i == 4) {
                continue;
            }
            for (int bit = 0; bit < 8; bit++) {
                buf.put(i, (byte) (buf.get(i) ^ 1 << bit));
                assertEquals(false, icrc.check(buf, len, addr), "byte " + i + " bit " + bit + " is covered");
                buf.put(i, (byte) (buf.get(i) ^ 1 << bit));
            }
        }
        addr.srcPort++;
        assertEquals(false, icrc.check(buf, len, addr), "the UDP source port is covered");
    }

    /** Each valid opcode's header length, from IBA vol. 1 table 35 and the header sizes of 9.3. */
    private static Map<Integer, Integer> expectedHeaderLengths() {
        Map<Integer, Integer> m = new TreeMap<>();
        for (int t : new int[] {Opcode.RC, Opcode.UC}) {
            m.put(t | 0x00, 12); // SEND_FIRST
            m.put(t | 0x01, 12); // SEND_MIDDLE
            m.put(t | 0x02, 12); // SEND_LAST
            m.put(t | 0x03, 16); // SEND_LAST_WITH_IMMEDIATE: ImmDt
            m.put(t | 0x04, 12); // SEND_ONLY
            m.put(t | 0x05, 16); // SEND_ONLY_WITH_IMMEDIATE
            m.put(t | 0x06, 28); // RDMA_WRITE_FIRST: RETH
            m.put(t | 0x07, 12);
            m.put(t | 0x08, 12);
            m.put(t | 0x09, 16); // RDMA_WRITE_LAST_WITH_IMMEDIATE: ImmDt
            m.put(t | 0x0a, 28); // RDMA_WRITE_ONLY: RETH
            m.put(t | 0x0b, 32); // RDMA_WRITE_ONLY_WITH_IMMEDIATE: RETH, ImmDt
        }
        m.put(0x0c, 28); // RDMA_READ_REQUEST: RETH
        m.put(0x0d, 16); // RDMA_READ_RESPONSE_FIRST: AETH
        m.put(0x0e, 12); // RDMA_READ_RESPONSE_MIDDLE
        m.put(0x0f, 16); // RDMA_READ_RESPONSE_LAST: AETH
        m.put(0x10, 16); // RDMA_READ_RESPONSE_ONLY: AETH
        m.put(0x11, 16); // ACKNOWLEDGE: AETH
        m.put(0x12, 24); // ATOMIC_ACKNOWLEDGE: AETH, AtomicAckETH
        m.put(0x13, 40); // COMPARE_SWAP: AtomicETH
        m.put(0x14, 40); // FETCH_ADD: AtomicETH
        m.put(0x16, 16); // SEND_LAST_WITH_INVALIDATE: IETH
        m.put(0x17, 16); // SEND_ONLY_WITH_INVALIDATE: IETH
        m.put(0x1c, 32); // FLUSH: FETH, RETH
        m.put(0x1d, 28); // ATOMIC_WRITE: RETH
        // XRC (IBA table 35, 101xxxxx): each request has a 4-byte XRCETH after the BTH; responses are RC's.
        int[][] xrc = {{0xa0, 16}, {0xa1, 16}, {0xa2, 16}, {0xa3, 20}, {0xa4, 16}, {0xa5, 20}, {0xa6, 32},
            {0xa7, 16}, {0xa8, 16}, {0xa9, 20}, {0xaa, 32}, {0xab, 36}, {0xac, 32}, {0xad, 16}, {0xae, 12},
            {0xaf, 16}, {0xb0, 16}, {0xb1, 16}, {0xb2, 24}, {0xb3, 44}, {0xb4, 44}, {0xb6, 20}, {0xb7, 20}};
        for (int[] e : xrc) {
            m.put(e[0], e[1]);
        }
        m.put(0x64, 20); // UD SEND_ONLY: DETH
        m.put(0x65, 24); // UD SEND_ONLY_WITH_IMMEDIATE: DETH, ImmDt
        return m;
    }

    @Test
    @DisplayName("The opcode table holds exactly IBA's RC, UC, UD and XRC opcodes (XRC without FLUSH and ATOMIC_WRITE), each with its headers")
    void opcodeTable() {
        Map<Integer, Integer> expected = expectedHeaderLengths();
        for (int op = 0; op < 256; op++) {
            Integer len = expected.get(op);
            assertEquals(len != null, Opcode.isValid(op), Opcode.name(op));
            assertEquals(len == null ? 0 : len, Opcode.headerLength(op), Opcode.name(op));
        }
        assertEquals(Opcode.BTH_BYTES + Opcode.RETH_BYTES,
                Opcode.offset(Opcode.RC | Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.IMMDT));
        assertEquals(Opcode.BTH_BYTES + Opcode.DETH_BYTES,
                Opcode.offset(Opcode.UD | Opcode.SEND_ONLY_WITH_IMMEDIATE, Opcode.IMMDT));
        assertEquals(Opcode.BTH_BYTES + Opcode.FETH_BYTES, Opcode.offset(Opcode.RC | Opcode.FLUSH, Opcode.RETH));
        assertEquals(-1, Opcode.offset(Opcode.RC | Opcode.SEND_ONLY, Opcode.RETH));
        assertEquals(Opcode.BTH_BYTES, Opcode.offset(Opcode.XRC | Opcode.RDMA_WRITE_FIRST, Opcode.XRCETH));
        assertEquals(Opcode.BTH_BYTES + Opcode.XRCETH_BYTES,
                Opcode.offset(Opcode.XRC | Opcode.RDMA_WRITE_FIRST, Opcode.RETH));
        assertEquals(-1, Opcode.offset(Opcode.XRC | Opcode.ACKNOWLEDGE, Opcode.XRCETH));
        assertTrue(Opcode.is(Opcode.UC | Opcode.SEND_ONLY, Opcode.ONLY));
        assertTrue(Opcode.is(Opcode.RC | Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.MIDDLE | Opcode.RESPONSE));
    }

    @Test
    @DisplayName("Headers land at IBA's offsets: an RDMA WRITE ONLY with immediate, byte by byte")
    void byteLayout() {
        Packet p = new Packet();
        p.opcode = Opcode.RC | Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE;
        p.solicited = true;
        p.destQpn = 0xabcdef;
        p.ackReq = true;
        p.psn = 0x123456;
        p.va = 0x0102030405060708L;
        p.rkey = 0x99887766;
        p.dmaLength = 3;
        p.immediate = 0xcafef00d;
        p.payloadLength = 3;
        ByteBuffer buf = ByteBuffer.allocate(64);
        int off = p.writeHeaders(buf);
        buf.put(off, new byte[] {1, 2, 3});
        int len = p.seal(buf, icrc, new Ipv4Udp());
        assertEquals(32 + 4 + 4, len);
        // opcode, SE|pad 1, P_Key, QPN, A|PSN, RETH (VA, rkey, length), ImmDt, payload, one pad byte.
        assertEquals("0b90ffff00abcdef80123456" + "0102030405060708" + "99887766" + "00000003" + "cafef00d"
                + "01020300", HEX.formatHex(buf.array(), 0, len - 4));
    }

    @Test
    @DisplayName("An XRC RDMA WRITE FIRST carries the XRCETH (the SRQ number, 24 bits) between the BTH and the RETH")
    void xrcByteLayout() {
        Packet p = new Packet();
        p.opcode = Opcode.XRC | Opcode.RDMA_WRITE_FIRST;
        p.destQpn = 0x000011;
        p.psn = 0x000002;
        p.xrcSrqn = 0x00abcdef;
        p.va = 0x10;
        p.rkey = 0x20;
        p.dmaLength = 4096;
        p.payloadLength = 4;
        ByteBuffer buf = ByteBuffer.allocate(64);
        int off = p.writeHeaders(buf);
        assertEquals(32, off, "BTH 12 + XRCETH 4 + RETH 16");
        assertEquals("a600ffff0000001100000002" + "00abcdef" + "0000000000000010" + "00000020" + "00001000",
                HEX.formatHex(buf.array(), 0, off));
    }

    @Test
    @DisplayName("Every opcode's fields survive encode and parse, with payloads of every pad count")
    void roundTripEveryOpcode() {
        Random r = new Random(15);
        Ipv4Udp addr = new Ipv4Udp().set(ip(10, 0, 0, 1), 49152 + 7, ip(10, 0, 0, 2), 4791);
        ByteBuffer buf = ByteBuffer.allocateDirect(256);
        for (int op : expectedHeaderLengths().keySet()) {
            for (int payload = 0; payload < 9; payload++) {
                if (payload > 0 && !Opcode.is(op, Opcode.PAYLOAD)) {
                    break;
                }
                Packet a = random(r, op, payload);
                int off = a.writeHeaders(buf);
                for (int i = 0; i < payload; i++) {
                    buf.put(off + i, (byte) r.nextInt());
                }
                int len = a.seal(buf, icrc, addr);
                assertEquals(a.packetLength(), len);
                assertEquals(0, len % 4, "a packet is a whole number of words");
                Packet b = new Packet();
                assertNull(b.parse(buf, len, icrc, addr), Opcode.name(op));
                assertEquals(describe(a), describe(b), Opcode.name(op) + " payload " + payload);
            }
        }
    }

    private static Packet random(Random r, int op, int payload) {
        Packet p = new Packet();
        p.opcode = op;
        p.solicited = r.nextBoolean();
        p.migReq = r.nextBoolean();
        p.destQpn = r.nextInt() & Packet.MASK_24;
        p.ackReq = r.nextBoolean();
        p.psn = r.nextInt() & Packet.MASK_24;
        p.va = r.nextLong();
        p.rkey = r.nextInt();
        p.dmaLength = r.nextInt();
        int type = new int[] {Packet.AETH_ACK, Packet.AETH_RNR_NAK, Packet.AETH_NAK}[r.nextInt(3)];
        p.syndrome = type | (type == Packet.AETH_NAK ? r.nextInt(5) : r.nextInt(32));
        p.msn = r.nextInt() & Packet.MASK_24;
        p.swapAdd = r.nextLong();
        p.compare = r.nextLong();
        p.origRemoteData = r.nextLong();
        p.immediate = r.nextInt();
        p.invalidateRkey = r.nextInt();
        p.qkey = r.nextInt();
        p.srcQpn = r.nextInt() & Packet.MASK_24;
        p.feth = r.nextInt();
        p.xrcSrqn = r.nextInt() & Packet.MASK_24;
        p.payloadLength = payload;
        return p;
    }

    /** The fields the opcode carries, as text. */
    private static String describe(Packet p) {
        int op = p.opcode;
        StringBuilder s = new StringBuilder(Opcode.name(op));
        s.append(" se=").append(p.solicited).append(" m=").append(p.migReq).append(" pad=").append(p.padCount)
                .append(" pkey=").append(p.pkey).append(" qpn=").append(p.destQpn).append(" a=").append(p.ackReq)
                .append(" psn=").append(p.psn).append(" payload=").append(p.payloadLength);
        if (Opcode.is(op, Opcode.RETH)) {
            s.append(" reth=").append(p.va).append('/').append(p.rkey).append('/').append(p.dmaLength);
        }
        if (Opcode.is(op, Opcode.AETH)) {
            s.append(" aeth=").append(p.syndrome).append('/').append(p.msn);
        }
        if (Opcode.is(op, Opcode.ATOMIC_ETH)) {
            s.append(" atomic=").append(p.va).append('/').append(p.rkey).append('/').append(p.swapAdd).append('/')
                    .append(p.compare);
        }
        if (Opcode.is(op, Opcode.ATOMIC_ACK_ETH)) {
            s.append(" orig=").append(p.origRemoteData);
        }
        if (Opcode.is(op, Opcode.IMMDT)) {
            s.append(" imm=").append(p.immediate);
        }
        if (Opcode.is(op, Opcode.IETH)) {
            s.append(" ieth=").append(p.invalidateRkey);
        }
        if (Opcode.is(op, Opcode.DETH)) {
            s.append(" deth=").append(p.qkey).append('/').append(p.srcQpn);
        }
        if (Opcode.is(op, Opcode.FETH)) {
            s.append(" feth=").append(p.feth);
        }
        if (Opcode.is(op, Opcode.XRCETH)) {
            s.append(" xrceth=").append(p.xrcSrqn);
        }
        return s.toString();
    }

    /** A sealed RC SEND_ONLY of {@code payload} bytes in a 64-byte buffer; returns its length. */
    private int sendOnly(ByteBuffer buf, int payload, Ipv4Udp addr) {
        Packet p = new Packet();
        p.opcode = Opcode.RC | Opcode.SEND_ONLY;
        p.destQpn = 0x12;
        p.payloadLength = payload;
        p.writeHeaders(buf);
        return p.seal(buf, icrc, addr);
    }

    @Test
    @DisplayName("A malformed packet is rejected with its reason")
    void rejects() {
        Ipv4Udp addr = new Ipv4Udp().set(ip(10, 0, 0, 1), 50000, ip(10, 0, 0, 2), 4791);
        ByteBuffer buf = ByteBuffer.allocate(64);
        Packet p = new Packet();
        int len = sendOnly(buf, 6, addr);
        assertNull(p.parse(buf, len, icrc, addr));
        for (int n = 0; n < Opcode.BTH_BYTES + Opcode.ICRC_BYTES; n++) {
            assertEquals(Reject.TRUNCATED, p.parse(buf, n, icrc, addr), "length " + n);
        }
        assertEquals(Reject.TRUNCATED, p.parse(buf, 65, icrc, addr), "longer than the buffer");
        buf.put(0, (byte) 0x15);
        assertEquals(Reject.BAD_OPCODE, p.parse(buf, len, icrc, addr));
        buf.put(0, (byte) (Opcode.RC | Opcode.SEND_ONLY));
        buf.put(1, (byte) (buf.get(1) | 1));
        assertEquals(Reject.BAD_TRANSPORT_VERSION, p.parse(buf, len, icrc, addr));
        buf.put(1, (byte) (buf.get(1) & ~1));
        buf.putShort(2, (short) 0x8001);
        assertEquals(Reject.BAD_PKEY, p.parse(buf, len, icrc, addr));
        buf.putShort(2, (short) 0x7fff);
        assertEquals(Reject.BAD_ICRC, p.parse(buf, len, icrc, addr), "a limited member of the default partition");
        buf.putShort(2, (short) 0xffff);
        buf.put(1, (byte) 0x30);
        assertEquals(Reject.BAD_ICRC, p.parse(buf, len, icrc, addr), "pad 3 of an 8-byte remainder is legal");
        assertEquals(Reject.BAD_PAD, p.parse(buf, len - 1, icrc, addr), "not a whole number of words");
        assertEquals(Reject.BAD_PAD, p.parse(buf, Opcode.BTH_BYTES + Opcode.ICRC_BYTES, icrc, addr),
                "pad 3 of an empty payload");
        assertEquals(Reject.BAD_ICRC, p.parse(buf, len, icrc, new Ipv4Udp().set(ip(10, 0, 0, 3), 50000,
                ip(10, 0, 0, 2), 4791)), "another source address");

        len = sendOnly(buf, 0, addr);
        buf.put(0, (byte) (Opcode.RC | Opcode.ACKNOWLEDGE));
        assertEquals(Reject.TRUNCATED, p.parse(buf, len, icrc, addr), "an ACK without its AETH");
        buf.putInt(12, 0);
        addr.ipId = 0;
        new Icrc().write(buf, 20, addr);
        assertNull(p.parse(buf, 20, icrc, addr));
        assertEquals(Reject.UNEXPECTED_PAYLOAD, p.parse(buf, 24, null, addr));
        for (int syndrome : new int[] {0x80, 0x40, 0x5f, 0x65, 0x7f}) {
            buf.put(12, (byte) syndrome);
            assertEquals(Reject.BAD_AETH, p.parse(buf, 20, null, addr), "syndrome 0x" + Integer.toHexString(syndrome));
        }
    }

    @Test
    @DisplayName("Encoding refuses an invalid opcode and a payload on an opcode without one")
    void encodeRefusesNonsense() {
        Packet p = new Packet();
        p.opcode = 0x15;
        assertThrows(IllegalArgumentException.class, () -> p.writeHeaders(ByteBuffer.allocate(64)));
        p.opcode = Opcode.RC | Opcode.ACKNOWLEDGE;
        p.payloadLength = 4;
        assertThrows(IllegalArgumentException.class, () -> p.writeHeaders(ByteBuffer.allocate(64)));
    }

    @Test
    @DisplayName("Random and mutated bytes are rejected or parsed, never thrown on")
    void randomBytes() {
        Random r = new Random(4791);
        Ipv4Udp addr = new Ipv4Udp();
        ByteBuffer good = ByteBuffer.allocate(128);
        int goodLen = sendOnly(good, 40, addr);
        ByteBuffer buf = ByteBuffer.allocate(128);
        Packet p = new Packet();
        int accepted = 0;
        for (int i = 0; i < 100_000; i++) {
            int len = r.nextInt(129);
            if (r.nextBoolean()) {
                for (int j = 0; j < 128; j++) {
                    buf.put(j, (byte) r.nextInt());
                }
                // A valid opcode most of the time, so the deeper checks are reached.
                buf.put(0, (byte) (int) expectedHeaderLengths().keySet().toArray(new Integer[0])[r.nextInt(39)]);
                buf.put(1, (byte) (buf.get(1) & 0xf0));
            } else {
                buf.put(0, good, 0, 128);
                buf.put(r.nextInt(goodLen), (byte) r.nextInt());
                len = goodLen;
            }
            Reject why = p.parse(buf, len, icrc, addr);
            if (why == null) {
                accepted++;
                assertTrue(p.payloadOffset() + p.payloadLength + p.padCount + 4 == len);
            }
        }
        // Only the mutations that rewrote a byte with its own value or a masked bit pass.
        assertTrue(accepted < 2000, "accepted " + accepted);
        assertNotNull(p.parse(buf, 3, icrc, addr));
    }
}
