package org.verbs4j.provider.emulated.wire.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The CM MAD codec against the offsets of IBA vol. 1 tables 106 to 113 (as Linux's {@code ibta_vol1_c12.h} has
 * them: a message's byte N is MAD byte 24 + N, bit 0 the most significant), and rdma_cm's header.
 */
class CmMadTest {
    private static final int M = 24;

    private static ByteBuffer written(CmMad mad) {
        ByteBuffer b = ByteBuffer.allocate(CmMad.LENGTH + 8);
        mad.write(b, 8);
        return b.slice(8, CmMad.LENGTH);
    }

    private static byte[] pd(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    private static CmMad req() {
        CmMad m = new CmMad().begin(CmMad.ATTR_REQ, 0x1122334455667788L);
        m.localCommId = 0xa1b2c3d4;
        m.serviceId = CmaHeader.serviceId(7471);
        m.localCaGuid = 0x0200_0aff_fe4f_0002L;
        m.localQpn = 0x123456;
        m.responderResources = 4;
        m.initiatorDepth = 3;
        m.remoteCmResponseTimeout = 20;
        m.transportServiceType = 0;
        m.startingPsn = 0xabcdef;
        m.localCmResponseTimeout = 19;
        m.retryCount = 7;
        m.pathMtu = 3;
        m.rnrRetryCount = 6;
        m.maxCmRetries = 15;
        m.localGid[15] = 2;
        m.remoteGid[15] = 1;
        m.flowLabel = 0xfffff;
        m.packetRate = 3;
        m.hopLimit = 64;
        m.sl = 5;
        m.subnetLocal = true;
        m.localAckTimeout = 14;
        m.privateData = pd(CmMad.REQ_PRIVATE_DATA, 1);
        return m;
    }

    @Test
    @DisplayName("A REQ's fields sit where IBA table 106 puts them")
    void reqOffsets() {
        ByteBuffer b = written(req());
        assertEquals(1, b.get(0), "base version");
        assertEquals(0x07, b.get(1), "CM class");
        assertEquals(2, b.get(2), "class version");
        assertEquals(0x03, b.get(3), "Send");
        assertEquals(0x1122334455667788L, b.getLong(8), "transaction ID");
        assertEquals(0x0010, b.getShort(16), "attribute ID");
        assertEquals(0xa1b2c3d4, b.getInt(M), "local communication ID");
        assertEquals(0x0000000001061d2fL, b.getLong(M + 8), "service ID: RDMA_PS_TCP << 16 | 7471");
        assertEquals(0x0200_0aff_fe4f_0002L, b.getLong(M + 16));
        assertEquals(0x12345604, b.getInt(M + 32), "QPN, responder resources");
        assertEquals(3, b.getInt(M + 36), "EECN 0, initiator depth");
        assertEquals(20 << 3, b.get(M + 43) & 0xff, "remote CM response timeout, RC");
        assertEquals(0xabcdef << 8 | 19 << 3 | 7, b.getInt(M + 44), "PSN, local CM response timeout, retry count");
        assertEquals(0xffff, b.getShort(M + 48) & 0xffff, "P_Key");
        assertEquals(3 << 4 | 6, b.get(M + 50), "MTU, RDC, RNR retry count");
        assertEquals(0xf0, b.get(M + 51) & 0xff, "max CM retries, no SRQ");
        assertEquals(0xffff, b.getShort(M + 52) & 0xffff, "local LID: permissive on RoCE");
        assertEquals(2, b.get(M + 56 + 15), "primary local port GID");
        assertEquals(1, b.get(M + 72 + 15), "primary remote port GID");
        assertEquals(0xfffff << 12 | 3, b.getInt(M + 88), "flow label, packet rate");
        assertEquals(64, b.get(M + 93), "hop limit");
        assertEquals(5 << 4 | 0x08, b.get(M + 94), "SL, subnet local");
        assertEquals(14 << 3, b.get(M + 95) & 0xff, "local ACK timeout");
        assertEquals(1, b.get(M + 140), "private data at byte 140");
        assertEquals((byte) 92, b.get(CmMad.LENGTH - 1), "92 bytes of it, to the end of the MAD");
    }

    @Test
    @DisplayName("Every field of every message reads back as it was written")
    void roundTrips() {
        CmMad r = new CmMad();
        CmMad req = req();
        assertNull(r.parse(written(req), 0, CmMad.LENGTH));
        assertEquals(req.toString(), r.toString());
        assertEquals(req.localQpn, r.localQpn);
        assertEquals(req.startingPsn, r.startingPsn);
        assertEquals(req.responderResources, r.responderResources);
        assertEquals(req.initiatorDepth, r.initiatorDepth);
        assertEquals(req.retryCount, r.retryCount);
        assertEquals(req.rnrRetryCount, r.rnrRetryCount);
        assertEquals(req.pathMtu, r.pathMtu);
        assertEquals(req.serviceId, r.serviceId);
        assertEquals(req.localAckTimeout, r.localAckTimeout);
        assertEquals(req.sl, r.sl);
        assertArrayEquals(req.localGid, r.localGid);
        assertArrayEquals(req.remoteGid, r.remoteGid);
        assertArrayEquals(req.privateData, r.privateData);

        CmMad rep = new CmMad().begin(CmMad.ATTR_REP, 5);
        rep.localCommId = 11;
        rep.remoteCommId = 12;
        rep.localQpn = 0xfedcba;
        rep.startingPsn = 0x654321;
        rep.responderResources = 2;
        rep.initiatorDepth = 9;
        rep.targetAckDelay = 17;
        rep.rnrRetryCount = 7;
        rep.srq = true;
        rep.localCaGuid = -2;
        rep.privateData = pd(CmMad.REP_PRIVATE_DATA, 7);
        ByteBuffer b = written(rep);
        assertEquals(0xfedcba00, b.getInt(M + 12), "REP local QPN (table 110)");
        assertEquals(0x65432100, b.getInt(M + 20), "REP starting PSN");
        assertEquals(0xf0, b.get(M + 27) & 0xff, "RNR retry count in bits 0..2, SRQ in bit 3");
        assertEquals(7, b.get(M + 36), "REP private data at byte 36");
        assertNull(r.parse(b, 0, CmMad.LENGTH));
        assertEquals(12, r.remoteCommId);
        assertEquals(0xfedcba, r.localQpn);
        assertEquals(0x654321, r.startingPsn);
        assertEquals(2, r.responderResources);
        assertEquals(9, r.initiatorDepth);
        assertEquals(17, r.targetAckDelay);
        assertEquals(7, r.rnrRetryCount);
        assertTrue(r.srq);
        assertEquals(-2, r.localCaGuid);
        assertArrayEquals(rep.privateData, r.privateData);

        CmMad rej = new CmMad().begin(CmMad.ATTR_REJ, 6);
        rej.localCommId = 21;
        rej.remoteCommId = 22;
        rej.messageRejected = CmMad.REJECTED_REP;
        rej.reason = 28;
        rej.privateData = pd(10, 3);
        b = written(rej);
        assertEquals(0x40, b.get(M + 8) & 0xff, "message rejected in bits 0..1");
        assertEquals(28, b.getShort(M + 10), "reason");
        assertEquals(3, b.get(M + 84), "REJ private data at byte 84");
        assertNull(r.parse(b, 0, CmMad.LENGTH));
        assertEquals(CmMad.REJECTED_REP, r.messageRejected);
        assertEquals(28, r.reason);
        assertEquals(CmMad.REJ_PRIVATE_DATA, r.privateData.length, "the whole private data field");
        assertArrayEquals(rej.privateData, Arrays.copyOf(r.privateData, 10));

        CmMad dreq = new CmMad().begin(CmMad.ATTR_DREQ, 7);
        dreq.localCommId = 31;
        dreq.remoteCommId = 32;
        dreq.remoteQpn = 0x000abc;
        b = written(dreq);
        assertEquals(0x000abc00, b.getInt(M + 8), "DREQ remote QPN");
        assertNull(r.parse(b, 0, CmMad.LENGTH));
        assertEquals(0xabc, r.remoteQpn);
        assertEquals(CmMad.DREQ_PRIVATE_DATA, r.privateData.length);

        for (int attr : new int[] {CmMad.ATTR_RTU, CmMad.ATTR_DREP}) {
            CmMad m = new CmMad().begin(attr, 8);
            m.localCommId = 41;
            m.remoteCommId = 42;
            m.privateData = pd(4, 9);
            b = written(m);
            assertEquals(9, b.get(M + 8), CmMad.name(attr) + " private data at byte 8");
            assertNull(r.parse(b, 0, CmMad.LENGTH));
            assertEquals(attr, r.attributeId);
            assertEquals(41, r.localCommId);
            assertEquals(42, r.remoteCommId);
        }
    }

    @Test
    @DisplayName("A MAD of another class, version or method, a short one, or too much private data is refused")
    void refusals() {
        CmMad r = new CmMad();
        ByteBuffer b = written(req());
        assertNotNull(r.parse(b, 0, CmMad.LENGTH - 1), "short");
        for (int at : new int[] {0, 1, 2, 3}) {
            ByteBuffer bad = written(req());
            bad.put(at, (byte) (bad.get(at) + 1));
            assertNotNull(r.parse(bad, 0, CmMad.LENGTH), "header byte " + at + " changed");
        }
        ByteBuffer lap = written(req());
        lap.putShort(16, (short) 0x0019);
        assertNotNull(r.parse(lap, 0, CmMad.LENGTH), "LAP is not handled");
        CmMad big = new CmMad().begin(CmMad.ATTR_RTU, 0);
        big.privateData = new byte[CmMad.RTU_PRIVATE_DATA + 1];
        assertThrows(IllegalArgumentException.class, () -> written(big));
    }

    @Test
    @DisplayName("rdma_cm's header: version 0, IPv4 in the high nibble, the source port, the addresses' last 4 bytes")
    void cmaHeader() {
        CmaHeader h = new CmaHeader(0x0a4f0002, 49152, 0x0a4f0001);
        byte[] pd = h.prepend(new byte[] {'h', 'i'});
        assertEquals(38, pd.length);
        ByteBuffer b = ByteBuffer.wrap(pd);
        assertEquals(0, b.get(0));
        assertEquals(0x40, b.get(1));
        assertEquals((short) 49152, b.getShort(2));
        assertEquals(0, b.getInt(4) | b.getInt(8) | b.getInt(12), "IPv4: the first 12 address bytes are zero");
        assertEquals(0x0a4f0002, b.getInt(16));
        assertEquals(0x0a4f0001, b.getInt(32));
        assertEquals('h', pd[36]);
        assertEquals(h, CmaHeader.parse(pd));
        assertArrayEquals(new byte[] {'h', 'i'}, CmaHeader.userData(pd));
        pd[1] = 0x60;
        assertNull(CmaHeader.parse(pd), "IPv6 is not read");
        assertEquals(7471, CmaHeader.portOf(CmaHeader.serviceId(7471)));
        assertEquals(-1, CmaHeader.portOf(0x0000000001110000L | 7471), "RDMA_PS_UDP's service ID");
        assertThrows(IllegalArgumentException.class, () -> h.prepend(new byte[CmaHeader.USER_DATA + 1]));
    }
}
