package org.verbs4j.provider.jnr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionQueue;
import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.PostSendException;
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
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * Two RC QPs in loopback on a real device (rxe0 in the soft-RoCE VM): RDMA WRITE through a WR session
 * and through postSend, SEND/RECV with immediate data, RDMA READ and both atomics, with the bytes
 * checked. Skipped where the provider is unavailable, as on a machine without RDMA.
 */
class JnrRxeLoopbackTest {
    private static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private Arena arena;
    private Context ctx;
    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue cq1;
    private CompletionQueue cq2;
    private QueuePair qp1;
    private QueuePair qp2;
    private MemorySegment a;
    private MemorySegment b;
    private MemoryRegion mrA;
    private MemoryRegion mrB;
    private final WorkCompletionBatch batch = new WorkCompletionBatch(16);

    @BeforeEach
    void connect() {
        JnrProvider provider = new JnrProvider();
        assumeTrue(provider.isAvailable(), () -> "jnr unavailable: " + provider.unavailabilityCause().getMessage());
        String wanted = System.getenv().getOrDefault("VERBS4J_RDMA_DEVICE", "rxe0");
        Device device = provider.devices().stream().filter(d -> d.name().equals(wanted)).findFirst()
                .orElse(provider.devices().get(0));
        ctx = device.open();
        pd = ctx.allocPd();
        channel = ctx.createCompletionChannel();
        cq1 = ctx.createCq(64, channel, 0);
        cq2 = ctx.createCq(64);
        arena = Arena.ofShared();
        a = arena.allocate(4096, 4096);
        b = arena.allocate(4096, 4096);
        mrA = pd.registerMemory(a, ACCESS, arena);
        mrB = pd.registerMemory(b, ACCESS, arena);
        WrOpcode[] ops = {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.SEND, WrOpcode.SEND_WITH_IMM,
            WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD};
        qp1 = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq1).maxSendSge(2).maxInlineData(64).sendOps(ops)
                .build());
        qp2 = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq2).sendOps(ops).build());
        // The soft-RoCE runner names the RoCE v2 IPv4 GID; elsewhere entry 0 (link-local) serves loopback.
        int gidIndex = Integer.parseInt(System.getenv().getOrDefault("VERBS4J_RDMA_GID_INDEX", "0"));
        Gid gid = ctx.queryGid(1, gidIndex);
        assertTrue(!gid.isZero(), "GID 0 of port 1 is empty");
        AhAttributes av = AhAttributes.roce(gid, gidIndex, 1);
        Mtu mtu = ctx.queryPort(1).activeMtu();
        for (QueuePair[] pair : new QueuePair[][] {{qp1, qp2}, {qp2, qp1}}) {
            pair[0].modify(QpAttributes.toInit(1, 0, ACCESS));
            pair[0].modify(QpAttributes.toRtr(av, mtu, pair[1].qpNum(), 0, 4, 12));
            pair[0].modify(QpAttributes.toRts(0, 14, 7, 7, 4));
            assertEquals(QpState.RTS, pair[0].state());
        }
        assertEquals(QpState.RTS, qp1.query().state());
    }

    @AfterEach
    void close() {
        if (ctx != null) {
            qp1.close();
            qp2.close();
            mrA.close();
            mrB.close();
            cq1.close();
            cq2.close();
            channel.close();
            pd.close();
            ctx.close();
            arena.close();
        }
    }

    private void awaitCompletion(CompletionQueue cq, long wrId, WcOpcode opcode) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (System.nanoTime() < deadline) {
            if (cq.poll(batch) > 0) {
                assertEquals(1, batch.size());
                assertEquals(WcStatus.SUCCESS, batch.status(0), () -> "completion " + batch.get(0));
                assertEquals(wrId, batch.wrId(0));
                assertEquals(opcode, batch.opcode(0));
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion of WR " + wrId + " within 60 s");
    }

    private static void fill(MemorySegment s, long offset, int len, int seed) {
        for (int i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (seed + i * 7));
        }
    }

    private static byte[] bytes(MemorySegment s, long offset, int len) {
        return s.asSlice(offset, len).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    @DisplayName("RDMA WRITE through a WR session lands the bytes in the remote region")
    void rdmaWriteThroughWrSession() {
        fill(a, 0, 256, 3);
        try (WrSession s = qp1.startWr()) {
            s.wrId(11);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(mrB.rkey(), mrB.address() + 512);
            s.setSge(mrA.lkey(), mrA.address(), 256);
            s.complete();
        }
        awaitCompletion(cq1, 11, WcOpcode.RDMA_WRITE);
        assertArrayEquals(bytes(a, 0, 256), bytes(b, 512, 256));
    }

    @Test
    @DisplayName("inline RDMA WRITE from a heap segment copies the bytes at the setter")
    void inlineWriteFromHeap() {
        byte[] data = new byte[48];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (100 + i);
        }
        try (WrSession s = qp1.startWr()) {
            s.wrId(12);
            s.wrFlags(SendFlags.SIGNALED | SendFlags.INLINE);
            s.rdmaWrite(mrB.rkey(), mrB.address() + 1024);
            s.setInlineData(MemorySegment.ofArray(data));
            java.util.Arrays.fill(data, (byte) 0);
            s.complete();
        }
        awaitCompletion(cq1, 12, WcOpcode.RDMA_WRITE);
        for (int i = 0; i < 48; i++) {
            assertEquals((byte) (100 + i), b.get(ValueLayout.JAVA_BYTE, 1024 + i));
        }
    }

    @Test
    @DisplayName("RDMA WRITE through postSend, and a list stops at the first invalid WR")
    void rdmaWriteThroughPostSend() {
        fill(a, 0, 128, 9);
        SendWr write = new SendWr().wrId(21).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(mrA.address(), 128, mrA.lkey())).rdma(mrB.address() + 2048, mrB.rkey());
        SendWr tso = new SendWr().wrId(22).opcode(WrOpcode.TSO);
        PostSendException e = assertThrows(PostSendException.class, () -> qp1.postSend(List.of(write, tso)));
        assertEquals(1, e.badWrIndex());
        assertEquals(Errno.EINVAL, e.errno());
        awaitCompletion(cq1, 21, WcOpcode.RDMA_WRITE);
        assertArrayEquals(bytes(a, 0, 128), bytes(b, 2048, 128));
    }

    @Test
    @DisplayName("SEND with immediate data reaches a posted receive, with the immediate in host order")
    void sendWithImmediate() {
        fill(a, 0, 100, 17);
        qp2.postRecv(new RecvWr(31, new Sge(mrB.address() + 3000, 512, mrB.lkey())));
        qp1.postSend(new SendWr().wrId(32).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED)
                .immData(0x12345678).sgList(new Sge(mrA.address(), 100, mrA.lkey())));
        awaitCompletion(cq1, 32, WcOpcode.SEND);
        awaitCompletion(cq2, 31, WcOpcode.RECV);
        assertEquals(100, batch.byteLen(0));
        assertTrue((batch.wcFlags(0) & WcFlags.WITH_IMM) != 0);
        assertEquals(0x12345678, batch.immData(0));
        assertEquals(qp2.qpNum(), batch.qpNum(0));
        assertArrayEquals(bytes(a, 0, 100), bytes(b, 3000, 100));
    }

    @Test
    @DisplayName("a WR-session SEND wakes the armed CQ's completion channel")
    void sessionSendAndChannel() {
        fill(a, 0, 64, 5);
        qp2.postRecv(new RecvWr(41, new Sge(mrB.address(), 64, mrB.lkey())));
        cq1.requestNotify(false);
        assertNull(channel.awaitEvent(0, TimeUnit.MILLISECONDS));
        try (WrSession s = qp1.startWr()) {
            s.wrId(42);
            s.wrFlags(SendFlags.SIGNALED);
            s.sendImm(0xCAFEBABE);
            s.setSge(mrA.lkey(), mrA.address(), 64);
            s.complete();
        }
        assertEquals(cq1, channel.awaitEvent(60, TimeUnit.SECONDS));
        awaitCompletion(cq1, 42, WcOpcode.SEND);
        awaitCompletion(cq2, 41, WcOpcode.RECV);
        assertEquals(0xCAFEBABE, batch.immData(0));
        assertArrayEquals(bytes(a, 0, 64), bytes(b, 0, 64));
    }

    @Test
    @DisplayName("RDMA READ brings the remote bytes into the local region")
    void rdmaRead() {
        fill(b, 1500, 200, 77);
        try (WrSession s = qp1.startWr()) {
            s.wrId(51);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaRead(mrB.rkey(), mrB.address() + 1500);
            s.setSge(mrA.lkey(), mrA.address() + 3000, 200);
            s.complete();
        }
        awaitCompletion(cq1, 51, WcOpcode.RDMA_READ);
        assertArrayEquals(bytes(b, 1500, 200), bytes(a, 3000, 200));
    }

    @Test
    @DisplayName("fetch-and-add and compare-and-swap return the old value and update the remote 8 bytes")
    void atomics() {
        b.set(ValueLayout.JAVA_LONG, 3584, 40L);
        try (WrSession s = qp1.startWr()) {
            s.wrId(61);
            s.wrFlags(SendFlags.SIGNALED);
            s.atomicFetchAdd(mrB.rkey(), mrB.address() + 3584, 2);
            s.setSge(mrA.lkey(), mrA.address() + 3584, 8);
            s.complete();
        }
        awaitCompletion(cq1, 61, WcOpcode.FETCH_ADD);
        assertEquals(40L, a.get(ValueLayout.JAVA_LONG, 3584));
        assertEquals(42L, b.get(ValueLayout.JAVA_LONG, 3584));
        qp1.postSend(new SendWr().wrId(62).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(mrA.address() + 3592, 8, mrA.lkey())).atomic(mrB.address() + 3584, 42, 7, mrB.rkey()));
        awaitCompletion(cq1, 62, WcOpcode.COMP_SWAP);
        assertEquals(42L, a.get(ValueLayout.JAVA_LONG, 3592));
        assertEquals(7L, b.get(ValueLayout.JAVA_LONG, 3584));
    }

    @Test
    @DisplayName("a session with an opcode that was not requested fails at complete and posts nothing")
    void sessionFaultDiscardsBatch() {
        QueuePair sendOnly = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq1).sendOps(WrOpcode.SEND).build());
        try {
            WrSession s = sendOnly.startWr();
            s.wrId(71);
            s.rdmaWrite(mrB.rkey(), mrB.address());
            s.setSge(mrA.lkey(), mrA.address(), 8);
            VerbsException e = assertThrows(VerbsException.class, s::complete);
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(!s.isActive());
            assertEquals(0, cq1.poll(batch));
        } finally {
            sendOnly.close();
        }
        assertThrows(IllegalStateException.class, sendOnly::startWr);
        assertThrows(IllegalStateException.class, sendOnly::query);
    }

    @Test
    @DisplayName("queryDataInOrder gives the same answer with flags 0 and RETURN_CAPS")
    void dataInOrder() {
        for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.SEND}) {
            int whole = qp1.queryDataInOrder(op, 0);
            int caps = qp1.queryDataInOrder(op, org.verbs4j.DataInOrder.RETURN_CAPS);
            assertEquals(whole, caps & org.verbs4j.DataInOrder.WHOLE_MSG.bit(), op.toString());
        }
        assertNotNull(ctx.capabilities());
    }

    @Test
    @DisplayName("rxe's CQs are extended (ibv_create_cq_ex) unless -Dverbs4j.jnr.extendedCq=false asks for a plain one")
    void extendedCqUnlessTurnedOff() {
        assumeTrue(ctx.device().name().startsWith("rxe"), "librxe is known to have create_cq_ex");
        assertTrue(((NativeCompletionQueue) cq1).isExtended(), "the CQ with a channel");
        assertTrue(((NativeCompletionQueue) cq2).isExtended(), "the CQ without a channel");
        String old = System.getProperty(JnrProvider.EXTENDED_CQ_PROPERTY);
        System.setProperty(JnrProvider.EXTENDED_CQ_PROPERTY, "false");
        CompletionQueue plain;
        try {
            plain = ctx.createCq(8);
        } finally {
            if (old == null) {
                System.clearProperty(JnrProvider.EXTENDED_CQ_PROPERTY);
            } else {
                System.setProperty(JnrProvider.EXTENDED_CQ_PROPERTY, old);
            }
        }
        try (plain) {
            assertTrue(!((NativeCompletionQueue) plain).isExtended());
            assertTrue(plain.capacity() >= 8);
            assertEquals(0, plain.poll(batch));
        }
    }

    @Test
    @DisplayName("a batch smaller than the completions waiting takes them over several polls, oldest first")
    void pollsInPartialBatches() {
        for (int i = 0; i < 5; i++) {
            qp1.postSend(new SendWr().wrId(80 + i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(mrA.address(), 16, mrA.lkey())).rdma(mrB.address() + 16L * i, mrB.rkey()));
        }
        WorkCompletionBatch two = new WorkCompletionBatch(2);
        List<Long> ids = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (ids.size() < 5 && System.nanoTime() < deadline) {
            int n = cq1.poll(two);
            assertTrue(n <= 2, "poll returned " + n + " into a batch of 2");
            for (int i = 0; i < n; i++) {
                assertEquals(WcStatus.SUCCESS, two.status(i));
                assertEquals(WcOpcode.RDMA_WRITE, two.opcode(i));
                assertEquals(qp1.qpNum(), two.qpNum(i));
                ids.add(two.wrId(i));
            }
        }
        assertEquals(List.of(80L, 81L, 82L, 83L, 84L), ids);
        assertEquals(0, cq1.poll(two));
    }

    @Test
    @DisplayName("a failed completion reports wr_id, status and qp_num, and 0 for the fields ibv_poll_cq(3) leaves undefined")
    void failedCompletionFields() {
        qp1.postSend(new SendWr().wrId(91).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(mrA.address(), 64, mrA.lkey() + 0x100)).rdma(mrB.address(), mrB.rkey()));
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (cq1.poll(batch) == 0) {
            assertTrue(System.nanoTime() < deadline, "no completion of WR 91 within 60 s");
            Thread.onSpinWait();
        }
        assertEquals(91, batch.wrId(0));
        assertTrue(batch.status(0) != WcStatus.SUCCESS, () -> "the bad lkey completed: " + batch.get(0));
        assertEquals(qp1.qpNum(), batch.qpNum(0));
        assertEquals(0, batch.byteLen(0));
        assertEquals(0, batch.wcFlags(0));
        assertEquals(0, batch.immData(0));
        assertEquals(WcOpcode.of(0), batch.opcode(0));
    }
}
