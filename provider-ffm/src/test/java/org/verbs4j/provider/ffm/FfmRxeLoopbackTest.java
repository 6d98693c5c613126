package org.verbs4j.provider.ffm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionQueue;
import org.verbs4j.provider.nativecommon.internal.NativeContext;
import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.PortAttributes;
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
 * Two RC QPs of one real device connected in loopback: WRITE through a WrSession and through postSend,
 * SEND/RECV with immediate data, READ, atomics, with the bytes checked. Runs where the ffm provider is
 * available (the soft-RoCE VM: {@code softroce/run}); elsewhere it is skipped with the provider's cause.
 */
class FfmRxeLoopbackTest {
    private static final int SIZE = 4096;
    private static final int ALL_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
            | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;

    private Context ctx;
    private Arena arena;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private MemoryRegion mrA;
    private MemoryRegion mrB;
    private QueuePair a;
    private QueuePair b;
    private final WorkCompletionBatch batch = new WorkCompletionBatch(16);

    /** The RoCE v2 IPv4-mapped GID of port 1, else entry 1, else entry 0. */
    static int roceGidIndex(Context ctx) {
        PortAttributes port = ctx.queryPort(1);
        for (int i = 0; i < port.gidTblLen(); i++) {
            Gid g = ctx.queryGid(1, i);
            if (g.subnetPrefix() == 0 && (g.interfaceId() >>> 32) == 0xffffL) {
                return i;
            }
        }
        return port.gidTblLen() > 1 ? 1 : 0;
    }

    static void connect(Context ctx, QueuePair x, QueuePair y) {
        int gidIndex = roceGidIndex(ctx);
        Gid gid = ctx.queryGid(1, gidIndex);
        PortAttributes port = ctx.queryPort(1);
        int rd = Math.max(1, Math.min(16, ctx.queryDevice().maxQpRdAtom()));
        int access = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        for (QueuePair[] p : new QueuePair[][] {{x, y}, {y, x}}) {
            p[0].modify(QpAttributes.toInit(1, 0, access));
            p[0].modify(QpAttributes.toRtr(AhAttributes.roce(gid, gidIndex, 1), port.activeMtu(), p[1].qpNum(), 0,
                    rd, 12));
            p[0].modify(QpAttributes.toRts(0, 14, 7, 7, rd));
        }
    }

    @BeforeEach
    void open() {
        FfmProvider provider = new FfmProvider();
        assumeTrue(provider.isAvailable(), () -> "ffm provider unavailable: " + provider.unavailabilityCause());
        Device dev = provider.devices().get(0);
        ctx = dev.open();
        arena = Arena.ofShared();
        pd = ctx.allocPd();
        cq = ctx.createCq(64);
        mrA = pd.registerMemory(arena.allocate(SIZE, 4096), ALL_ACCESS, arena);
        mrB = pd.registerMemory(arena.allocate(SIZE, 4096), ALL_ACCESS, arena);
        QpInitAttributes.Builder qb = QpInitAttributes.builder(QpType.RC).cq(cq).maxSendSge(2).maxInlineData(64)
                .sendOps(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.SEND, WrOpcode.SEND_WITH_IMM,
                        WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD);
        a = pd.createQp(qb.build());
        b = pd.createQp(qb.build());
        connect(ctx, a, b);
        assertEquals(QpState.RTS, a.query().state());
    }

    @AfterEach
    void close() {
        if (ctx != null) {
            ctx.close();
            arena.close();
        }
    }

    private int await(int n) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        int got = 0;
        WorkCompletionBatch one = new WorkCompletionBatch(16);
        while (got < n && System.nanoTime() < deadline) {
            int k = cq.poll(one);
            for (int i = 0; i < k; i++) {
                assertEquals(WcStatus.SUCCESS, one.status(i), "completion " + one.get(i));
                got++;
            }
            for (int i = 0; i < k; i++) {
                seen.add(one.get(i));
            }
        }
        assertEquals(n, got, "completions within 60 s");
        return got;
    }

    private final java.util.List<org.verbs4j.WorkCompletion> seen = new java.util.ArrayList<>();

    private static void fill(MemorySegment s, long off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (seed + i * 7));
        }
    }

    private static byte[] bytes(MemorySegment s, long off, int len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * A fixed exchange on two fresh QPs that share {@code c}: SEND with immediate data, WRITE with
     * immediate data, READ, then the receiver moved to ERR with one receive still posted (a flushed
     * receive). Each completion is returned with the QP numbers replaced by the QP's role, so that two
     * runs compare field by field.
     */
    private List<String> exchange(NativeCompletionQueue c) {
        QpInitAttributes.Builder qb = QpInitAttributes.builder(QpType.RC).cq(c).maxSendSge(2)
                .sendOps(WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ);
        fill(mrA.segment(), 0, 256, 17);
        try (QueuePair x = pd.createQp(qb.build()); QueuePair y = pd.createQp(qb.build())) {
            connect(ctx, x, y);
            y.postRecv(List.of(new RecvWr(1, Sge.of(mrB, 0, 256)), new RecvWr(2, Sge.of(mrB, 256, 256)),
                    new RecvWr(3, Sge.of(mrB, 512, 256))));
            x.postSend(List.of(
                    new SendWr().wrId(4).opcode(WrOpcode.SEND_WITH_IMM).immData(0x01020304)
                            .sendFlags(SendFlags.SIGNALED).sgList(Sge.of(mrA, 0, 100)),
                    new SendWr().wrId(5).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0xa0b0c0d0)
                            .sendFlags(SendFlags.SIGNALED).sgList(Sge.of(mrA, 0, 8)).rdma(mrB.address() + 1024,
                                    mrB.rkey()),
                    new SendWr().wrId(6).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                            .sgList(Sge.of(mrA, 2048, 64)).rdma(mrB.address(), mrB.rkey())));
            List<org.verbs4j.WorkCompletion> wcs = new java.util.ArrayList<>(drain(c, 5));
            y.modify(QpAttributes.toState(QpState.ERR));
            wcs.addAll(drain(c, 1));
            List<String> out = new java.util.ArrayList<>();
            for (org.verbs4j.WorkCompletion w : wcs) {
                out.add(new org.verbs4j.WorkCompletion(w.wrId(), w.status(), w.opcode(), w.vendorErr(), w.byteLen(),
                        w.immData(), role(w.qpNum(), x, y), role(w.srcQp(), x, y), w.wcFlags(), w.pkeyIndex(),
                        w.slid(), w.sl(), w.dlidPathBits()).toString());
            }
            out.sort(null);
            return out;
        }
    }

    private static int role(int qpn, QueuePair x, QueuePair y) {
        return qpn == x.qpNum() ? -1 : qpn == y.qpNum() ? -2 : qpn;
    }

    /** Polls {@code c} with a batch of 2 (so a poll can stop with completions left) until {@code n} arrive. */
    private static List<org.verbs4j.WorkCompletion> drain(CompletionQueue c, int n) {
        List<org.verbs4j.WorkCompletion> out = new java.util.ArrayList<>();
        WorkCompletionBatch two = new WorkCompletionBatch(2);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (out.size() < n && System.nanoTime() < deadline) {
            int k = c.poll(two);
            for (int i = 0; i < k; i++) {
                out.add(two.get(i));
            }
        }
        assertEquals(n, out.size(), "completions within 60 s: " + out);
        assertEquals(0, c.poll(two), "no completion beyond the expected ones");
        return out;
    }

    @Test
    void theExtendedCqIsUsedAndReportsWhatThePlainOneDoes() {
        assumeTrue(!"false".equalsIgnoreCase(System.getProperty(FfmProvider.EXTENDED_CQ_PROPERTY)),
                "-D" + FfmProvider.EXTENDED_CQ_PROPERTY + "=false");
        NativeContext f = (NativeContext) ctx;
        assertTrue(((NativeCompletionQueue) cq).isExtended(), "createCq made a plain CQ where librxe has create_cq_ex");
        try (NativeCompletionQueue extended = f.createCq(16, null, 0, true);
             NativeCompletionQueue plain = f.createCq(16, null, 0, false)) {
            assertTrue(extended.isExtended());
            assertTrue(!plain.isExtended());
            List<String> viaExtended = exchange(extended);
            List<String> viaPlain = exchange(plain);
            assertEquals(6, viaPlain.size());
            assertTrue(viaPlain.stream().anyMatch(w -> w.contains("WR_FLUSH_ERR")), viaPlain.toString());
            assertTrue(viaPlain.stream().anyMatch(w -> w.contains("immData=16909060")), viaPlain.toString());
            assertEquals(viaPlain, viaExtended);
        }
    }

    @Test
    void rdmaWriteThroughTheWrSession() {
        fill(mrA.segment(), 0, 256, 3);
        try (WrSession s = a.startWr()) {
            s.wrId(11);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(mrB.rkey(), mrB.address() + 512);
            s.setSge(mrA.lkey(), mrA.address(), 256);
            s.complete();
        }
        await(1);
        assertEquals(11, seen.get(0).wrId());
        assertEquals(WcOpcode.RDMA_WRITE, seen.get(0).opcode());
        assertArrayEquals(bytes(mrA.segment(), 0, 256), bytes(mrB.segment(), 512, 256));
    }

    @Test
    void rdmaWriteThroughPostSend() {
        fill(mrA.segment(), 0, 1024, 9);
        SendWr w1 = new SendWr().wrId(21).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 0, 512)).rdma(mrB.address(), mrB.rkey());
        SendWr w2 = new SendWr().wrId(22).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 512, 512)).rdma(mrB.address() + 2048, mrB.rkey());
        a.postSend(List.of(w1, w2));
        await(2);
        assertEquals(List.of(21L, 22L), seen.stream().map(org.verbs4j.WorkCompletion::wrId).toList());
        assertArrayEquals(bytes(mrA.segment(), 0, 512), bytes(mrB.segment(), 0, 512));
        assertArrayEquals(bytes(mrA.segment(), 512, 512), bytes(mrB.segment(), 2048, 512));
    }

    @Test
    void sendWithImmediateArrivesInHostOrder() {
        fill(mrA.segment(), 0, 100, 5);
        b.postRecv(new RecvWr(31, Sge.of(mrB, 0, 1024)));
        try (WrSession s = a.startWr()) {
            s.wrId(32);
            s.wrFlags(SendFlags.SIGNALED);
            s.sendImm(0x12345678);
            s.setSge(mrA.lkey(), mrA.address(), 100);
            s.complete();
        }
        await(2);
        var recv = seen.stream().filter(w -> w.opcode() == WcOpcode.RECV).findFirst().orElseThrow();
        assertEquals(31, recv.wrId());
        assertEquals(100, recv.byteLen());
        assertTrue(recv.hasImm());
        assertEquals(0x12345678, recv.immData());
        assertEquals(b.qpNum(), recv.qpNum());
        assertArrayEquals(bytes(mrA.segment(), 0, 100), bytes(mrB.segment(), 0, 100));
    }

    @Test
    void rdmaWriteWithImmediateAndPostSendSend() {
        b.postRecv(List.of(new RecvWr(41, Sge.of(mrB, 0, 64)), new RecvWr(42, Sge.of(mrB, 64, 64))));
        a.postSend(new SendWr().wrId(43).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0xcafe0001)
                .sendFlags(SendFlags.SIGNALED).sgList(Sge.of(mrA, 0, 8)).rdma(mrB.address() + 1000, mrB.rkey()));
        await(2);
        var recv = seen.stream().filter(w -> w.opcode() == WcOpcode.RECV_RDMA_WITH_IMM).findFirst().orElseThrow();
        assertEquals(0xcafe0001, recv.immData());
        assertEquals(WcFlags.WITH_IMM, recv.wcFlags() & WcFlags.WITH_IMM);
    }

    @Test
    void rdmaReadAndAtomics() {
        fill(mrB.segment(), 0, 300, 17);
        a.postSend(new SendWr().wrId(51).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 0, 300)).rdma(mrB.address(), mrB.rkey()));
        await(1);
        assertEquals(WcOpcode.RDMA_READ, seen.get(0).opcode());
        assertArrayEquals(bytes(mrB.segment(), 0, 300), bytes(mrA.segment(), 0, 300));

        mrB.segment().set(ValueLayout.JAVA_LONG, 1024, 40L);
        try (WrSession s = a.startWr()) {
            s.wrId(52);
            s.wrFlags(SendFlags.SIGNALED);
            s.atomicFetchAdd(mrB.rkey(), mrB.address() + 1024, 2);
            s.setSge(mrA.lkey(), mrA.address() + 1024, 8);
            s.complete();
        }
        await(1);
        assertEquals(WcOpcode.FETCH_ADD, seen.get(1).opcode());
        assertEquals(40L, mrA.segment().get(ValueLayout.JAVA_LONG, 1024));
        assertEquals(42L, mrB.segment().get(ValueLayout.JAVA_LONG, 1024));

        a.postSend(new SendWr().wrId(53).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 2048, 8)).atomic(mrB.address() + 1024, 42L, 7L, mrB.rkey()));
        await(1);
        assertEquals(WcOpcode.COMP_SWAP, seen.get(2).opcode());
        assertEquals(42L, mrA.segment().get(ValueLayout.JAVA_LONG, 2048));
        assertEquals(7L, mrB.segment().get(ValueLayout.JAVA_LONG, 1024));
    }

    @Test
    void inlineDataFromTheHeapIsCopiedAtTheSetter() {
        byte[] data = "inline from a heap array".getBytes();
        MemorySegment heap = MemorySegment.ofArray(data.clone());
        try (WrSession s = a.startWr()) {
            s.wrId(61);
            s.wrFlags(SendFlags.SIGNALED | SendFlags.INLINE);
            s.rdmaWrite(mrB.rkey(), mrB.address() + 3000);
            s.setInlineData(heap);
            heap.fill((byte) 0);
            s.complete();
        }
        await(1);
        assertArrayEquals(data, bytes(mrB.segment(), 3000, data.length));
    }

    @Test
    void anInvalidWrFailsCompleteAndNothingExecutes() {
        WrSession s = a.startWr();
        s.wrId(71);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(mrB.rkey(), mrB.address());
        s.setSge(mrA.lkey(), mrA.address(), 8);
        s.sendInv(5); // not requested in sendOps
        VerbsException e = assertThrows(VerbsException.class, s::complete);
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(!s.isActive());
        assertEquals(0, cq.poll(batch));
    }

    @Test
    void postSendReportsTheBadWrAndKeepsTheOnesBefore() {
        SendWr good = new SendWr().wrId(81).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(mrA, 0, 8)).rdma(mrB.address(), mrB.rkey());
        Sge s = Sge.of(mrA, 0, 8);
        SendWr bad = new SendWr().wrId(82).opcode(WrOpcode.RDMA_WRITE).sgList(s, s, s, s, s, s, s, s)
                .rdma(mrB.address(), mrB.rkey());
        PostSendException e = assertThrows(PostSendException.class, () -> a.postSend(List.of(good, bad, good)));
        assertEquals(1, e.badWrIndex());
        assertEquals(Errno.EINVAL, e.errno());
        await(1);
        assertEquals(81, seen.get(0).wrId());
    }

    @Test
    void closedObjectsAreRefusedInJava() {
        QueuePair qp = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).build());
        qp.close();
        assertTrue(qp.isClosed());
        assertThrows(IllegalStateException.class, () -> qp.postSend(new SendWr()));
        assertThrows(IllegalStateException.class, qp::query);
        assertThrows(IllegalStateException.class, () -> qp.postRecv(new RecvWr()));
        VerbsException busy = assertThrows(VerbsException.class, pd::close);
        assertEquals(Errno.EBUSY, busy.errno());
        assertThrows(IllegalArgumentException.class,
                () -> pd.registerMemory(MemorySegment.ofArray(new byte[64]), AccessFlags.LOCAL_WRITE));
        ctx.capabilities();
        ctx.close();
        assertTrue(a.isClosed() && mrA.isClosed() && pd.isClosed() && cq.isClosed());
        assertThrows(IllegalStateException.class, () -> cq.poll(batch));
        assertThrows(IllegalStateException.class, a::startWr);
        assertThrows(IllegalStateException.class, () -> mrA.lkey());
        ctx = null;
        arena.close();
    }

    @Test
    void dataInOrderGivesTheSameAnswerBothWays() {
        for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.SEND}) {
            int plain = a.queryDataInOrder(op, 0);
            int caps = a.queryDataInOrder(op, org.verbs4j.DataInOrder.RETURN_CAPS);
            assertEquals(plain == 1, (caps & org.verbs4j.DataInOrder.WHOLE_MSG.bit()) != 0, op.toString());
        }
    }
}
