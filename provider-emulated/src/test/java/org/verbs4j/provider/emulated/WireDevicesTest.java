package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Random;

import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.codec.Reject;

/**
 * Two wire devices of this JVM ({@code VERBS4J_EMULATED_ROCE=127.0.79.1:0,127.0.79.2:0}, one free port, set by the build's
 * {@code wire} test run) talking RoCE v2 over loopback UDP: every RC opcode across MTU-sized packets, RNR,
 * a remote access error, retransmission running out, UC, UD with its GRH, and garbage datagrams.
 */
@Tag("wire")
class WireDevicesTest {
    static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    static final int SIZE = 1 << 20;
    /**
     * About 1.07 s (4.096 us x 2^18), times 7 retries: a receive thread starved on a loaded 2-core build machine
     * may leave an ACK unread for a while; nothing is lost on loopback.
     */
    static final int ACK_TIMEOUT = 18;

    private final Arena arena = Arena.ofShared();
    private Context ctxA;
    private Context ctxB;
    private ProtectionDomain pdA;
    private ProtectionDomain pdB;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private MemorySegment bufA;
    private MemorySegment bufB;
    private MemoryRegion mrA;
    private MemoryRegion mrB;
    private final WorkCompletionBatch wc = new WorkCompletionBatch(1);

    static Device device(String name) {
        return new EmulatedProvider().device(name);
    }

    @BeforeEach
    void open() {
        ctxA = device("roce0").open();
        ctxB = device("roce1").open();
        pdA = ctxA.allocPd();
        pdB = ctxB.allocPd();
        cqA = ctxA.createCq(1024);
        cqB = ctxB.createCq(1024);
        bufA = arena.allocate(SIZE, 64);
        bufB = arena.allocate(SIZE, 64);
        mrA = pdA.registerMemory(bufA, ACCESS, arena);
        mrB = pdB.registerMemory(bufB, ACCESS, arena);
    }

    @AfterEach
    void close() {
        ctxA.close();
        ctxB.close();
        arena.close();
    }

    private QueuePair qp(ProtectionDomain pd, CompletionQueue cq, QpType type) {
        return pd.createQp(QpInitAttributes.builder(type).cq(cq).maxSendWr(64).maxRecvWr(64).maxSendSge(4)
                .maxRecvSge(4).build());
    }

    /** Moves {@code q} to RTS towards {@code peer} on {@code peerCtx}'s GID 1. */
    private static void connect(QueuePair q, Context peerCtx, int peerQpn, QpType type, int timeout, int retry,
                                int rnrRetry) {
        q.modify(QpAttributes.toInit(1, 0, ACCESS & ~AccessFlags.LOCAL_WRITE));
        AhAttributes av = AhAttributes.roce(peerCtx.queryGid(1, 1), 1, 1);
        if (type == QpType.RC) {
            q.modify(QpAttributes.toRtr(av, Mtu.MTU_1024, peerQpn, 100, 4, 12));
            q.modify(QpAttributes.toRts(100, timeout, retry, rnrRetry, 4));
        } else {
            q.modify(QpAttributes.toRtrUc(av, Mtu.MTU_1024, peerQpn, 100));
            q.modify(QpAttributes.toRtsUnreliable(100));
        }
    }

    private QueuePair[] rcPair(int rnrRetry) {
        QueuePair a = qp(pdA, cqA, QpType.RC);
        QueuePair b = qp(pdB, cqB, QpType.RC);
        connect(a, ctxB, b.qpNum(), QpType.RC, ACK_TIMEOUT, 7, rnrRetry);
        connect(b, ctxA, a.qpNum(), QpType.RC, ACK_TIMEOUT, 7, rnrRetry);
        return new QueuePair[] {a, b};
    }

    /** Polls until one completion arrives (10 s at most) and returns its status; its fields stay in {@link #wc}. */
    private WcStatus one(CompletionQueue cq) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc.status(0);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within 10 s");
    }

    private void fill(MemorySegment s, long off, long len, long seed) {
        Random r = new Random(seed);
        for (long i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) r.nextInt());
        }
    }

    private static void assertSame(MemorySegment a, long aOff, MemorySegment b, long bOff, long len) {
        assertEquals(-1, a.asSlice(aOff, len).mismatch(b.asSlice(bOff, len)), "bytes differ");
    }

    @Test
    @DisplayName("The measurement loss -Dverbs4j.emulated.roce.receiveLoss is a fraction in [0, 1), else none, and "
            + "off by default (issue 27)")
    void receiveLossIsAFractionAndOffByDefault() {
        assertEquals(0.0, RoceEndpoint.RECEIVE_LOSS, "off unless asked for");
        assertEquals(0.0, RoceEndpoint.receiveLoss(null));
        assertEquals(0.0, RoceEndpoint.receiveLoss("0"));
        assertEquals(0.01, RoceEndpoint.receiveLoss(" 0.01 "));
        assertEquals(0.999, RoceEndpoint.receiveLoss("0.999"), "just under 1 is a fraction");
        assertEquals(0.0, RoceEndpoint.receiveLoss("1"), "1 would drop everything: ignored");
        assertEquals(0.0, RoceEndpoint.receiveLoss("-0.01"));
        assertEquals(0.0, RoceEndpoint.receiveLoss("NaN"));
        assertEquals(0.0, RoceEndpoint.receiveLoss("1%"));
    }

    @Test
    @DisplayName("A wire device is listed after emu0 with an Ethernet port and rxe's GID table: fe80::/64 at 0, ::ffff:IPv4 at 1")
    void deviceShape() {
        Device d = device("roce0");
        assertEquals("emu0", new EmulatedProvider().devices().getFirst().name(), "emu0 stays the default");
        assertEquals(LinkLayer.ETHERNET, ctxA.queryPort(1).linkLayer());
        assertEquals(Gid.ofIpv4(new byte[] {127, 0, 79, 1}), ctxA.queryGid(1, 1));
        byte[] g0 = ctxA.queryGid(1, 0).toBytes();
        assertEquals((byte) 0xfe, g0[0]);
        assertEquals((byte) 0x80, g0[1]);
        // EUI-64 of MAC 02:00:7f:00:4f:01 with the universal/local bit inverted.
        assertEquals("00007ffffe004f01", java.util.HexFormat.of().formatHex(g0, 8, 16));
        assertEquals(8L << 20, ctxA.queryPort(1).maxMsgSz());
        assertTrue(d.guid() != 0);
    }

    @Test
    @DisplayName("RC WRITE, READ, SEND with immediate, WRITE with immediate and both atomics move the right bytes across MTU-sized packets")
    void rcOpcodes() {
        QueuePair[] p = rcPair(7);
        QueuePair a = p[0];
        QueuePair b = p[1];
        int len = 300 * 1024 + 123;
        fill(bufA, 0, len, 1);
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(mrB.address() + 5, mrB.rkey()).sgList(Sge.of(mrA, 0, len)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
        assertSame(bufA, 0, bufB, 5, len);

        // READ it back into another place, in two SGEs.
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(mrB.address() + 5, mrB.rkey())
                .sgList(Sge.of(mrA, 512 * 1024, 1000), Sge.of(mrA, 600 * 1024, len - 1000)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertEquals(WcOpcode.RDMA_READ, wc.opcode(0));
        assertSame(bufA, 0, bufA, 512 * 1024, 1000);
        assertSame(bufA, 1000, bufA, 600 * 1024, len - 1000);

        // SEND with immediate, 10 KiB, into a receive of two SGEs.
        b.postRecv(new RecvWr().wrId(7).sgList(Sge.of(mrB, 0, 4096), Sge.of(mrB, 8192, 8192)));
        fill(bufA, 0, 10240, 2);
        a.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED)
                .immData(0x12345678).sgList(Sge.of(mrA, 0, 10240)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertEquals(WcStatus.SUCCESS, one(cqB));
        assertEquals(7, wc.wrId(0));
        assertEquals(10240, wc.byteLen(0));
        assertEquals(0x12345678, wc.immData(0));
        assertTrue((wc.wcFlags(0) & WcFlags.WITH_IMM) != 0);
        assertEquals(a.qpNum(), wc.srcQp(0));
        assertSame(bufA, 0, bufB, 0, 4096);
        assertSame(bufA, 4096, bufB, 8192, 10240 - 4096);

        // WRITE with immediate consumes a receive and lands at the address.
        b.postRecv(new RecvWr(8, Sge.of(mrB, 0, 16)));
        a.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).sendFlags(SendFlags.SIGNALED)
                .immData(99).rdma(mrB.address() + 65536, mrB.rkey()).sgList(Sge.of(mrA, 0, 2000)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertEquals(WcStatus.SUCCESS, one(cqB));
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode(0));
        assertEquals(99, wc.immData(0));
        assertSame(bufA, 0, bufB, 65536, 2000);

        // Atomics.
        bufB.set(ValueLayout.JAVA_LONG, 4096, 40);
        a.postSend(new SendWr().wrId(5).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .atomic(mrB.address() + 4096, 2, 0, mrB.rkey()).sgList(Sge.of(mrA, 8, 8)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertEquals(40, bufA.get(ValueLayout.JAVA_LONG, 8));
        a.postSend(new SendWr().wrId(6).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                .atomic(mrB.address() + 4096, 42, 7, mrB.rkey()).sgList(Sge.of(mrA, 16, 8)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertEquals(42, bufA.get(ValueLayout.JAVA_LONG, 16));
        assertEquals(7, bufB.get(ValueLayout.JAVA_LONG, 4096));
    }

    @Test
    @DisplayName("Many unsignaled WRITEs then a signaled one complete in order, each once")
    void manyWrites() {
        QueuePair a = rcPair(7)[0];
        for (int i = 0; i < 200; i++) {
            bufA.set(ValueLayout.JAVA_INT, 4L * i, i * 31);
            a.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(i % 50 == 49 ? SendFlags.SIGNALED : 0)
                    .rdma(mrB.address() + 4L * i, mrB.rkey()).sgList(Sge.of(mrA, 4L * i, 4)));
            if (i % 50 == 49) {
                assertEquals(WcStatus.SUCCESS, one(cqA));
                assertEquals(i, wc.wrId(0));
            }
        }
        for (int i = 0; i < 200; i++) {
            assertEquals(i * 31, bufB.get(ValueLayout.JAVA_INT, 4L * i));
        }
        assertEquals(0, cqA.poll(wc));
    }

    @Test
    @DisplayName("RC SEND with no receive posted waits (RNR NAK) until one is, or fails with RNR_RETRY_EXC_ERR when rnr_retry runs out")
    void rnr() throws InterruptedException {
        QueuePair[] p = rcPair(7);
        p[0].postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 0, 100)));
        Thread.sleep(50);
        assertEquals(0, cqA.poll(wc), "the SEND waits for a receive");
        p[1].postRecv(new RecvWr(9, Sge.of(mrB, 0, 100)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertEquals(WcStatus.SUCCESS, one(cqB));
        assertEquals(9, wc.wrId(0));

        QueuePair[] q = rcPair(1);
        q[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 0, 100)));
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, one(cqA));
        assertErr(q[0]);
    }

    @Test
    @DisplayName("A SEND acknowledged in the middle that then meets no receive gets an RNR NAK the requester acts on")
    void rnrAfterPartialAck() throws InterruptedException {
        // 20 packets at MTU 1024: the requester asks for an ACK at the 16th, which the responder gives before the
        // last packet finds no receive. An RNR NAK for a PSN before that ACK would be ignored: retransmission then
        // runs out (RETRY_EXC_ERR, after 7 short timeouts here) instead of RNR_RETRY_EXC_ERR.
        int len = 20_000;
        QueuePair a = qp(pdA, cqA, QpType.RC);
        QueuePair b = qp(pdB, cqB, QpType.RC);
        connect(a, ctxB, b.qpNum(), QpType.RC, 14, 7, 1);
        connect(b, ctxA, a.qpNum(), QpType.RC, 14, 7, 1);
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 0, len)));
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, one(cqA));

        QueuePair[] p = rcPair(7);
        fill(bufA, 0, len, 5);
        p[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 0, len)));
        Thread.sleep(50);
        assertEquals(0, cqA.poll(wc), "the SEND waits for a receive");
        p[1].postRecv(new RecvWr(9, Sge.of(mrB, 0, len)));
        assertEquals(WcStatus.SUCCESS, one(cqB));
        assertEquals(len, wc.byteLen(0));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertSame(bufA, 0, bufB, 0, len);
    }

    /**
     * Asserts that {@code q} is in ERR now, right after its error completion was polled: the receive thread that
     * hands a WR its error moves the QP to ERR before it writes the completion (and a responder moves to ERR
     * before it sends the NAK that ends the requester's WR).
     */
    private static void assertErr(QueuePair q) {
        assertEquals(QpState.ERR, q.state(), "the QP is in ERR once its error completion can be polled");
    }

    @Test
    @DisplayName("A bad rkey gives REM_ACCESS_ERR at the requester and moves both QPs to ERR")
    void remoteAccessError() {
        QueuePair[] p = rcPair(7);
        p[0].postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(mrB.address(), mrB.rkey() ^ 0x100).sgList(Sge.of(mrA, 0, 3000)));
        assertEquals(WcStatus.REM_ACCESS_ERR, one(cqA));
        assertErr(p[0]);
        assertErr(p[1]);
        QueuePair[] q = rcPair(7);
        q[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(mrB.address() + SIZE - 8, mrB.rkey()).sgList(Sge.of(mrA, 0, 16)));
        assertEquals(WcStatus.REM_ACCESS_ERR, one(cqA), "a READ past the region's end");
    }

    @Test
    @DisplayName("With no responder, RC retransmits retry_cnt times after each timeout, then fails with RETRY_EXC_ERR")
    void retryExceeded() {
        QueuePair a = qp(pdA, cqA, QpType.RC);
        connect(a, ctxB, 0xabcdef, QpType.RC, 8, 2, 7);
        long before = RoceEndpoint.of(device("roce1")).rejected(Reject.UNKNOWN_QP);
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(mrB.address(), mrB.rkey()).sgList(Sge.of(mrA, 0, 10)));
        assertEquals(WcStatus.RETRY_EXC_ERR, one(cqA));
        // roce1's receive thread counts what it drops on its own time: under load it may lag behind the requester.
        EmulatedDevice roce1 = (EmulatedDevice) device("roce1");
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (RoceEndpoint.of(roce1).rejected(Reject.UNKNOWN_QP) - before < 3 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        LockSupport.parkNanos(50_000_000L); // a fourth try, which must not come, would show by now
        long dropped = RoceEndpoint.of(roce1).rejected(Reject.UNKNOWN_QP) - before;
        assertEquals(3, dropped, "the first try and two retries reached roce1, which has no such QP");
    }

    @Test
    @DisplayName("UC WRITE and SEND arrive without acknowledgements")
    void uc() {
        QueuePair a = qp(pdA, cqA, QpType.UC);
        QueuePair b = qp(pdB, cqB, QpType.UC);
        connect(a, ctxB, b.qpNum(), QpType.UC, 0, 0, 0);
        connect(b, ctxA, a.qpNum(), QpType.UC, 0, 0, 0);
        fill(bufA, 0, 5000, 3);
        b.postRecv(new RecvWr(1, Sge.of(mrB, 0, 8192)));
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 0, 5000)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertEquals(WcStatus.SUCCESS, one(cqB));
        assertEquals(5000, wc.byteLen(0));
        assertSame(bufA, 0, bufB, 0, 5000);
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(mrB.address() + 100_000, mrB.rkey()).sgList(Sge.of(mrA, 0, 5000)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (bufB.asSlice(100_000, 5000).mismatch(bufA.asSlice(0, 5000)) != -1 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertSame(bufA, 0, bufB, 100_000, 5000);
    }

    @Test
    @DisplayName("UD SEND delivers a 40-byte GRH as rxe writes it for IPv4 (20 zero bytes, then the IPv4 header) and the payload")
    void ud() {
        QueuePair a = qp(pdA, cqA, QpType.UD);
        QueuePair b = qp(pdB, cqB, QpType.UD);
        for (QueuePair q : new QueuePair[] {a, b}) {
            q.modify(QpAttributes.toInitUd(1, 0, 0x1111));
            q.modify(QpAttributes.toState(QpState.RTR));
            q.modify(QpAttributes.toRtsUnreliable(0));
        }
        b.postRecv(new RecvWr(1, Sge.of(mrB, 0, 40 + 1000)));
        fill(bufA, 0, 1000, 4);
        AddressHandle ah = pdA.createAh(AhAttributes.roce(ctxB.queryGid(1, 1), 1, 1));
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(5).sendFlags(SendFlags.SIGNALED)
                .ud(ah, b.qpNum(), 0x1111).sgList(Sge.of(mrA, 0, 1000)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        assertEquals(WcStatus.SUCCESS, one(cqB));
        assertEquals(1040, wc.byteLen(0));
        assertEquals(a.qpNum(), wc.srcQp(0));
        assertEquals(5, wc.immData(0));
        for (int i = 0; i < 20; i++) {
            assertEquals(0, bufB.get(ValueLayout.JAVA_BYTE, i));
        }
        assertEquals(0x45, bufB.get(ValueLayout.JAVA_BYTE, 20));
        assertEquals(17, bufB.get(ValueLayout.JAVA_BYTE, 29), "UDP");
        assertEquals(0x7f004f01, Integer.reverseBytes(bufB.get(ValueLayout.JAVA_INT_UNALIGNED, 32)), "source");
        assertEquals(0x7f004f02, Integer.reverseBytes(bufB.get(ValueLayout.JAVA_INT_UNALIGNED, 36)), "destination");
        assertSame(bufA, 0, bufB, 40, 1000);
        // A wrong Q_Key is dropped.
        b.postRecv(new RecvWr(2, Sge.of(mrB, 0, 40 + 1000)));
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .ud(ah, b.qpNum(), 0x2222).sgList(Sge.of(mrA, 0, 10)));
        assertEquals(WcStatus.SUCCESS, one(cqA));
        long deadline = System.nanoTime() + 200_000_000L;
        while (System.nanoTime() < deadline) {
            assertEquals(0, cqB.poll(wc), "a datagram with another Q_Key is not delivered");
        }
    }

    @Test
    @DisplayName("Garbage datagrams are dropped and counted; the device goes on working")
    void garbage() throws Exception {
        RoceEndpoint ep = RoceEndpoint.of(device("roce1"));
        long before = 0;
        for (Reject r : Reject.values()) {
            before += ep.rejected(r);
        }
        Random rnd = new Random(9);
        try (DatagramChannel ch = DatagramChannel.open()) {
            for (int i = 0; i < 500; i++) {
                byte[] junk = new byte[rnd.nextInt(200)];
                rnd.nextBytes(junk);
                ch.send(ByteBuffer.wrap(junk), ep.local);
            }
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        long after = before;
        while (after - before < 500 && System.nanoTime() < deadline) {
            after = 0;
            for (Reject r : Reject.values()) {
                after += ep.rejected(r);
            }
            Thread.sleep(10);
        }
        assertEquals(500, after - before, "every datagram dropped and counted");
        rcOpcodes();
    }
}
