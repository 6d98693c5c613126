package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AhAttributes;
import org.verbs4j.CmUdParameters;
import org.verbs4j.Gid;
import org.verbs4j.GlobalRoute;
import org.verbs4j.QpAttributes;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_ah_attr;
import org.verbs4j.provider.nativecommon.internal.RdmaCmStructs.rdma_cm_event;
import org.verbs4j.spi.support.internal.CmBinding.RawEvent;

/**
 * {@link LibRdmaCm#getEvent} copies every field the API gives out (id, listen id, type, status, the private
 * data behind {@code param.conn.private_data}, its length, the RDMA READ depths) before it returns, so nothing is
 * read after {@code rdma_ack_cm_event} frees the event. A fake librdmacm over Java memory frees the event and
 * its private data at the ack, and any later read of freed memory fails the test.
 */
class LibRdmaCmEventCopyTest {
    private static final int CONNECT_REQUEST = 4;
    private static final int REJECTED = 8;
    private static final int DISCONNECTED = 10;
    /** A pointer into no block: reading it fails the test. */
    private static final long GARBAGE = 0xdead_0000L;
    private static final int MULTICAST_JOIN = 12;
    /** A join's context: librdmacm hands it back in param.ud.private_data, which is then no pointer to follow. */
    private static final long JOIN_CONTEXT = 0x77;
    /** ::ffff:239.255.2.1 */
    private static final byte[] MGID = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, (byte) 239, (byte) 255, 2, 1};

    /** librdmacm's event calls over a map of Java blocks; freed blocks are poisoned, not reused. */
    static final class FakeRdmaCm extends LibRdmaCm {
        private final TreeMap<Long, byte[]> blocks = new TreeMap<>();
        private final TreeMap<Long, Integer> freed = new TreeMap<>();
        private long next = 0x10000;
        /** The next event's fields, as librdmacm would fill them. */
        long id = 0x1111;
        long listenId = 0x2222;
        int type = CONNECT_REQUEST;
        int status = -7;
        byte[] privateData = {1, 2, 3, 4, 5};
        int responderResources = 3;
        int initiatorDepth = 9;
        /** The event handed out and the private data block it points to. */
        long event;
        long data;
        int reads;

        FakeRdmaCm() {
            this(new FakeRdmaCm[1]);
        }

        private FakeRdmaCm(FakeRdmaCm[] self) {
            super(functions(self));
            self[0] = this;
        }

        /** librdmacm's functions: the two of the event path go to the fake, every other is unused here. */
        private static LibRdmaCmFunctions functions(FakeRdmaCm[] self) {
            return (LibRdmaCmFunctions) Proxy.newProxyInstance(LibRdmaCmFunctions.class.getClassLoader(),
                    new Class<?>[] {LibRdmaCmFunctions.class}, (proxy, m, args) -> switch (m.getName()) {
                        case "rdma_get_cm_event" -> self[0].getCmEvent((Long) args[0], (Long) args[1]);
                        case "rdma_ack_cm_event" -> self[0].ackCmEvent((Long) args[0]);
                        default -> throw unused();
                    });
        }

        @Override
        protected long allocate(long bytes) {
            long at = next;
            next += (bytes + 0xfff) & ~0xfffL;
            blocks.put(at, new byte[(int) bytes]);
            return at;
        }

        @Override
        protected void free(long address) {
            byte[] b = blocks.remove(address);
            if (b == null) {
                throw new AssertionError("free of " + Long.toHexString(address) + ", which is not allocated");
            }
            freed.put(address, b.length);
        }

        private Map.Entry<Long, byte[]> block(long address, int length) {
            Map.Entry<Long, Integer> gone = freed.floorEntry(address);
            if (gone != null && address < gone.getKey() + gone.getValue()) {
                throw new AssertionError("read or write of freed memory at " + Long.toHexString(address));
            }
            Map.Entry<Long, byte[]> e = blocks.floorEntry(address);
            if (e == null || address + length > e.getKey() + e.getValue().length) {
                throw new AssertionError("access outside any block at " + Long.toHexString(address));
            }
            return e;
        }

        @Override
        protected void put(long address, byte[] bytes) {
            Map.Entry<Long, byte[]> e = block(address, bytes.length);
            System.arraycopy(bytes, 0, e.getValue(), (int) (address - e.getKey()), bytes.length);
        }

        @Override
        protected byte[] get(long address, int length) {
            reads++;
            Map.Entry<Long, byte[]> e = block(address, length);
            byte[] out = new byte[length];
            System.arraycopy(e.getValue(), (int) (address - e.getKey()), out, 0, length);
            return out;
        }

        /** librdmacm's {@code rdma_get_cm_event}, as {@link #functions} routes it. */
        int getCmEvent(long channel, long eventOut) {
            event = allocate(rdma_cm_event.SIZEOF);
            // librdmacm fills param.conn only for connection events; elsewhere the union holds other bytes
            boolean conn = type == CONNECT_REQUEST || type == REJECTED;
            data = conn ? allocate(Math.max(1, privateData.length)) : GARBAGE;
            if (conn) {
                put(data, privateData);
            }
            ByteBuffer e = ByteBuffer.allocate((int) rdma_cm_event.SIZEOF).order(ByteOrder.LITTLE_ENDIAN);
            e.putLong((int) rdma_cm_event.id$off, id);
            e.putLong((int) rdma_cm_event.listen_id$off, listenId);
            e.putInt((int) rdma_cm_event.event$off, type);
            e.putInt((int) rdma_cm_event.status$off, status);
            e.putLong((int) rdma_cm_event.param$conn$private_data$off, data);
            e.put((int) rdma_cm_event.param$conn$private_data_len$off, (byte) privateData.length);
            e.put((int) rdma_cm_event.param$conn$responder_resources$off, (byte) responderResources);
            e.put((int) rdma_cm_event.param$conn$initiator_depth$off, (byte) initiatorDepth);
            if (type == MULTICAST_JOIN) { // param.ud, over param.conn in the union
                e.putLong((int) rdma_cm_event.param$ud$private_data$off, JOIN_CONTEXT);
                int ah = (int) rdma_cm_event.param$ud$ah_attr$off;
                e.put(ah + (int) ibv_ah_attr.grh$dgid$off, MGID);
                e.putInt(ah + (int) ibv_ah_attr.grh$flow_label$off, 0x12345);
                e.put(ah + (int) ibv_ah_attr.grh$sgid_index$off, (byte) 1);
                e.put(ah + (int) ibv_ah_attr.grh$hop_limit$off, (byte) 64);
                e.put(ah + (int) ibv_ah_attr.grh$traffic_class$off, (byte) 0x80);
                e.putShort(ah + (int) ibv_ah_attr.dlid$off, (short) 0xc001);
                e.put(ah + (int) ibv_ah_attr.sl$off, (byte) 3);
                e.put(ah + (int) ibv_ah_attr.is_global$off, (byte) 1);
                e.put(ah + (int) ibv_ah_attr.port_num$off, (byte) 1);
                e.putInt((int) rdma_cm_event.param$ud$qp_num$off, 0xffffff);
                e.putInt((int) rdma_cm_event.param$ud$qkey$off, 0x01234567);
            }
            put(event, e.array());
            put(eventOut, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, event).array());
            return 0;
        }

        /** librdmacm's {@code rdma_ack_cm_event}, as {@link #functions} routes it. */
        int ackCmEvent(long ev) {
            assertEquals(event, ev, "the ack names the event handed out");
            if (data != GARBAGE) {
                free(data);
            }
            free(ev);
            return 0;
        }

        private static UnsupportedOperationException unused() {
            return new UnsupportedOperationException("not used by the event path");
        }

        @Override
        protected String ibv_get_device_name(long device) {
            throw unused();
        }

        @Override
        protected long qpAttrSize() {
            throw unused();
        }

        @Override
        protected QpAttributes readQpAttr(long qpAttr, int mask) {
            throw unused();
        }

        @Override
        public boolean awaitReadable(int fd, long timeoutNanos) {
            throw unused();
        }
    }

    private static void assertAll(FakeRdmaCm lib, RawEvent raw, byte[] privateData) {
        assertEquals(lib.event, raw.event());
        assertEquals(lib.id, raw.id());
        assertEquals(lib.listenId, raw.listenId());
        assertEquals(lib.type, raw.type());
        assertEquals(lib.status, raw.status());
        assertArrayEquals(privateData, raw.privateData());
        assertEquals(lib.responderResources, raw.responderResources());
        assertEquals(lib.initiatorDepth, raw.initiatorDepth());
    }

    @Test
    @DisplayName("a CONNECT_REQUEST's id, listen id, type, status, private data and depths are copied before the ack frees the event")
    void connectRequestCopiedBeforeAck() {
        FakeRdmaCm lib = new FakeRdmaCm();
        RawEvent raw = lib.getEvent(0x7000);
        int reads = lib.reads;
        lib.ackEvent(raw.event());
        assertEquals(reads, lib.reads, "nothing is read at or after the ack");
        assertAll(lib, raw, new byte[] {1, 2, 3, 4, 5});
        assertThrows(AssertionError.class, () -> lib.get(lib.data, 1), "the fake does poison freed memory");
    }

    @Test
    @DisplayName("a REJECTED's status and private data are copied; 255 bytes of private data and depths of 255 survive as unsigned values")
    void rejectedCopiedBeforeAck() {
        FakeRdmaCm lib = new FakeRdmaCm();
        lib.type = REJECTED;
        lib.status = 28;
        lib.listenId = 0;
        lib.privateData = new byte[255];
        for (int i = 0; i < 255; i++) {
            lib.privateData[i] = (byte) (i + 1);
        }
        lib.responderResources = 255;
        lib.initiatorDepth = 255;
        byte[] expected = lib.privateData.clone();
        RawEvent raw = lib.getEvent(0x7000);
        lib.ackEvent(raw.event());
        assertAll(lib, raw, expected);
    }

    @Test
    @DisplayName("an event without param.conn (DISCONNECTED) does not follow the union's private_data bytes as a pointer")
    void noConnParamNoRead() {
        FakeRdmaCm lib = new FakeRdmaCm();
        lib.type = DISCONNECTED;
        RawEvent raw = lib.getEvent(0x7000);
        lib.ackEvent(raw.event());
        assertEquals(0, raw.privateData().length, "DISCONNECTED carries no private data");
        assertThrows(AssertionError.class, () -> lib.get(GARBAGE, 1), "the fake does refuse the garbage pointer");
    }

    @Test
    @DisplayName("a MULTICAST_JOIN's param.ud is copied: the context, every field of the address vector, the QPN and the Q_Key; its private data is the context, not a pointer to follow")
    void multicastJoinCopied() {
        FakeRdmaCm lib = new FakeRdmaCm();
        lib.type = MULTICAST_JOIN;
        lib.status = 0;
        RawEvent raw = lib.getEvent(0x7000);
        lib.ackEvent(raw.event());
        assertEquals(JOIN_CONTEXT, raw.udContext());
        assertEquals(0, raw.privateData().length, "a join's private_data is its context");
        CmUdParameters ud = raw.ud();
        assertEquals(0xffffff, ud.qpNum());
        assertEquals(0x01234567, ud.qkey());
        AhAttributes ah = ud.ahAttributes();
        assertEquals(new GlobalRoute(Gid.of(MGID), 0x12345, 1, 64, 0x80), ah.grh());
        assertEquals(0xc001, ah.dlid());
        assertEquals(3, ah.sl());
        assertEquals(1, ah.portNum());
    }

    @Test
    @DisplayName("a failed MULTICAST_JOIN (status not 0) carries no param.ud; a CONNECT_REQUEST has no join context")
    void failedJoinHasNoUd() {
        FakeRdmaCm lib = new FakeRdmaCm();
        lib.type = MULTICAST_JOIN;
        lib.status = -19;
        RawEvent raw = lib.getEvent(0x7000);
        lib.ackEvent(raw.event());
        assertEquals(JOIN_CONTEXT, raw.udContext());
        assertNull(raw.ud());
        FakeRdmaCm other = new FakeRdmaCm();
        RawEvent request = other.getEvent(0x7000);
        other.ackEvent(request.event());
        assertEquals(0, request.udContext());
        assertNull(request.ud());
    }
}
