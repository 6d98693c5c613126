package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.Errno;
import org.verbs4j.Mtu;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostRecvException;
import org.verbs4j.PostSendException;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.Sge;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.Binding;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.FakeContext;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.FakeCq;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.FakePd;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_recv_wr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_send_wr;
import org.verbs4j.spi.support.SendQueueLock;

/**
 * The shared QP and SRQ ({@link NativeQueuePairs}, {@link NativeQueuePair}, {@link NativeSendPoster},
 * {@link NativeRecvPoster}, {@link NativeSharedReceiveQueue}) over the recording binding of
 * {@link NativeObjectModelTest}: which verb each call reaches with which WR list, what {@code ibv_post_send(3)}
 * and {@code ibv_post_recv(3)} leave posted when a WR fails, and that nothing reaches the binding once closed.
 */
class NativeQueuePairTest {
    private static final long PD = 0x8000;
    private static final long QP = 0x9000;
    private static final long SRQ = 0xa000;
    private static final long POST_SEND = 0x10000 + ibv_context.ops$post_send$off;
    private static final long POST_RECV = 0x10000 + ibv_context.ops$post_recv$off;
    private static final long POST_SRQ_RECV = 0x10000 + ibv_context.ops$post_srq_recv$off;

    private final Binding binding = new Binding();

    {
        binding.recordMemory = false;
    }
    private final FakeContext context = new FakeContext(binding);
    private final FakePd pd = new FakePd(context);
    private final FakeCq cq = new FakeCq(context, 0x7000);

    /** An RC QP granted what it asked for (the query of the granted sizes fails, so the request stands). */
    private NativeQueuePair qp(int maxSendWr, int maxSendSge, int maxRecvWr, int maxRecvSge) {
        binding.nextObject = QP;
        binding.queryQpResult = -Errno.EINVAL;
        binding.memory.put(QP + ibv_qp.qp_num$off, 0x11);
        QueuePair q = NativeQueuePairs.createQp(context, pd, PD, pd.regions, QpInitAttributes.builder(QpType.RC)
                .cq(cq).maxSendWr(maxSendWr).maxSendSge(maxSendSge).maxRecvWr(maxRecvWr).maxRecvSge(maxRecvSge)
                .maxInlineData(16).build());
        binding.calls.clear();
        return (NativeQueuePair) q;
    }

    private void state(QpState s) {
        binding.memory.put(QP + ibv_qp.state$off, s.value());
    }

    private static SendWr write(long wrId, int sges) {
        Sge[] list = new Sge[sges];
        for (int i = 0; i < sges; i++) {
            list[i] = new Sge(0x100000 + 64L * i, 64, 0x55);
        }
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sgList(list).rdma(0x2000, 0x66);
    }

    @Test
    @DisplayName("postSend of another thread waits in Java while a WR session of the QP is open, so it never meets "
            + "the library's send-queue lock, which wr_start holds until wr_complete")
    void postSendWaitsForAnOpenSession() throws InterruptedException {
        context.createQpEx = 0x3000;
        long[] ops = {QpStructs.ibv_qp_ex.wr_start$off, QpStructs.ibv_qp_ex.wr_complete$off,
            QpStructs.ibv_qp_ex.wr_abort$off, QpStructs.ibv_qp_ex.wr_rdma_write$off, QpStructs.ibv_qp_ex.wr_set_sge$off};
        for (long off : ops) {
            binding.longs.put(QP + off, 0x5000 + off);
        }
        binding.nextObject = QP;
        binding.queryQpResult = -Errno.EINVAL;
        NativeQueuePair q = (NativeQueuePair) NativeQueuePairs.createQp(context, pd, PD, pd.regions,
                QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(4).maxSendSge(1).maxRecvWr(4).maxRecvSge(1)
                        .sendOps(WrOpcode.RDMA_WRITE).build());
        state(QpState.RTS);
        binding.calls.clear();
        WrSession s = q.startWr();
        Thread poster = new Thread(() -> q.postSend(write(9, 1)));
        poster.start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!parkedOnSendLock(poster) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(parkedOnSendLock(poster), "postSend did not wait for the open session on the QP's send lock: "
                + poster.getState() + " " + Arrays.toString(poster.getStackTrace()));
        assertTrue(binding.calls.stream().noneMatch(c -> c.startsWith("postSend")), binding.calls.toString());
        s.rdmaWrite(1, 0x1000L);
        s.setSge(1, 0x2000L, 8);
        s.complete();
        poster.join(10_000);
        assertFalse(poster.isAlive(), "postSend still waits after complete()");
        List<String> order = binding.calls.stream().filter(c -> c.startsWith("wrComplete") || c.startsWith("postSend"))
                .toList();
        assertEquals(2, order.size(), binding.calls.toString());
        assertTrue(order.get(0).startsWith("wrComplete") && order.get(1).startsWith("postSend"), order.toString());
    }

    /** Whether {@code t} is parked (waiting, with or without a timeout) inside the send lock's wait. */
    private static boolean parkedOnSendLock(Thread t) {
        Thread.State state = t.getState();
        return (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
                && Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getClassName().equals(SendQueueLock.class.getName()));
    }

    @Test
    @DisplayName("createQp calls ibv_create_qp with the PD's address, tracks the QP and reads its QPN")
    void creation() {
        NativeQueuePair q = qp(4, 2, 4, 1);
        assertEquals(0x11, q.qpNum());
        assertEquals(QP, q.handle());
        assertEquals(NativeKind.QP, context.tracked.get(QP));
        assertEquals(4, q.initAttributes().cap().maxSendWr());
        int freed = binding.freed.size();
        q.close();
        assertEquals(List.of("destroyQp " + QP), binding.calls);
        assertNull(context.tracked.get(QP));
        assertTrue(binding.freed.size() > freed, "the scratch memory is freed after the destroy verb");
    }

    @Test
    @DisplayName("a failed creation throws its errno and leaves nothing tracked; a foreign CQ is refused before it")
    void failedCreation() {
        binding.failWith = Errno.ENOMEM;
        VerbsException e = assertThrows(VerbsException.class, () -> NativeQueuePairs.createQp(context, pd, PD,
                pd.regions, QpInitAttributes.builder(QpType.RC).cq(cq).build()));
        assertEquals(Errno.ENOMEM, e.errno());
        assertTrue(context.tracked.isEmpty(), context.tracked.toString());
        binding.failWith = 0;
        FakeContext other = new FakeContext(binding);
        FakeCq foreign = new FakeCq(other, 0x7100);
        binding.calls.clear();
        assertThrows(IllegalArgumentException.class, () -> NativeQueuePairs.createQp(context, pd, PD, pd.regions,
                QpInitAttributes.builder(QpType.RC).cq(foreign).build()));
        assertTrue(binding.calls.isEmpty(), binding.calls.toString());
    }

    @Test
    @DisplayName("postSend writes each WR at ibv_send_wr's offsets, ends the list at the call's last WR and links it again after")
    void postSendWritesTheList() {
        NativeQueuePair q = qp(4, 2, 4, 1);
        state(QpState.RTS);
        q.postSend(List.of(write(7, 1), write(8, 2)));
        assertEquals(List.of(2), binding.postedLengths);
        String call = binding.calls.getFirst();
        assertTrue(call.startsWith("postSend " + POST_SEND + " " + QP + " "), call);
        long wrs = Long.parseLong(call.substring(call.lastIndexOf(' ') + 1));
        assertEquals(7L, binding.getLong(wrs + ibv_send_wr.wr_id$off));
        assertEquals(WrOpcode.RDMA_WRITE.value(), binding.getInt(wrs + ibv_send_wr.opcode$off));
        long second = wrs + ibv_send_wr.SIZEOF;
        assertEquals(second, binding.getLong(wrs + ibv_send_wr.next$off));
        assertEquals(8L, binding.getLong(second + ibv_send_wr.wr_id$off));
        assertEquals(2, binding.getInt(second + ibv_send_wr.num_sge$off));
        assertEquals(0x66, binding.getInt(second + ibv_send_wr.wr$rdma$rkey$off));
        long sges = binding.getLong(second + ibv_send_wr.sg_list$off);
        assertEquals(0x100040L, binding.getLong(sges + ibv_sge.SIZEOF + ibv_sge.addr$off));
        assertEquals(second + ibv_send_wr.SIZEOF, binding.getLong(second + ibv_send_wr.next$off), "linked again");
        q.postSend(write(9, 1));
        assertEquals(List.of(2, 1), binding.postedLengths, "a single WR is a list of one");
        q.close();
    }

    @Test
    @DisplayName("a WR with more SGEs than granted fails with EINVAL at its index, and only the WRs before it are posted")
    void refusedWrStopsThePost() {
        NativeQueuePair q = qp(4, 2, 4, 1);
        state(QpState.RTS);
        PostSendException e = assertThrows(PostSendException.class,
                () -> q.postSend(List.of(write(1, 1), write(2, 3), write(3, 1))));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(1, e.badWrIndex());
        assertEquals(List.of(1), binding.postedLengths);
        q.close();
    }

    @Test
    @DisplayName("a list longer than the array goes in chunks, and bad_wr maps back to the index in the whole list")
    void chunksAndBadWr() {
        NativeQueuePair q = qp(2, 1, 4, 1);
        state(QpState.RTS);
        binding.postResults.add(0);
        binding.postResults.add(Errno.ENOMEM);
        q.postSend(write(0, 1));
        String call = binding.calls.getFirst();
        long wrs = Long.parseLong(call.substring(call.lastIndexOf(' ') + 1));
        binding.postResults.clear();
        binding.postedLengths.clear();
        binding.postResults.add(0);
        binding.postResults.add(Errno.ENOMEM);
        binding.badWrAt = wrs + ibv_send_wr.SIZEOF;
        PostSendException e = assertThrows(PostSendException.class,
                () -> q.postSend(List.of(write(1, 1), write(2, 1), write(3, 1), write(4, 1), write(5, 1))));
        assertEquals(Errno.ENOMEM, e.errno());
        assertEquals(3, e.badWrIndex(), "the second WR of the second chunk");
        assertEquals(List.of(2, 2), binding.postedLengths);
        q.close();
    }

    @Test
    @DisplayName("postSend outside RTS, SQD, SQE and ERR fails with EINVAL at WR 0 and posts nothing")
    void sendNeedsRts() {
        NativeQueuePair q = qp(4, 1, 4, 1);
        state(QpState.RTR);
        PostSendException e = assertThrows(PostSendException.class, () -> q.postSend(write(1, 1)));
        assertEquals(0, e.badWrIndex());
        assertTrue(e.getMessage().contains("RTR"), e.getMessage());
        assertTrue(binding.postedLengths.isEmpty());
        q.close();
    }

    @Test
    @DisplayName("an INLINE WR over the granted max_inline_data, or with an address outside the PD's regions, is refused")
    void inlineRefused() {
        NativeQueuePair q = qp(4, 1, 4, 1);
        state(QpState.RTS);
        SendWr big = new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.INLINE).sgList(new Sge(0x1000, 17, 0));
        PostSendException e = assertThrows(PostSendException.class, () -> q.postSend(big));
        assertTrue(e.getMessage().contains("max_inline_data 16"), e.getMessage());
        SendWr wild = new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.INLINE).sgList(new Sge(0x1000, 8, 0));
        assertEquals(Errno.EINVAL, assertThrows(PostSendException.class, () -> q.postSend(wild)).errno());
        assertTrue(binding.postedLengths.isEmpty());
        q.close();
    }

    @Test
    @DisplayName("receives beyond max_recv_sge fail with EINVAL at their index after the chunks before them were posted")
    void receives() {
        NativeQueuePair q = qp(4, 1, 2, 1);
        PostRecvException reset = assertThrows(PostRecvException.class,
                () -> q.postRecv(new RecvWr(1, new Sge(0x1000, 8, 1))));
        assertEquals(Errno.EINVAL, reset.errno(), "no receive in RESET");
        state(QpState.INIT);
        RecvWr wide = new RecvWr().wrId(3).sgList(new Sge(0x1000, 8, 1), new Sge(0x2000, 8, 1));
        PostRecvException e = assertThrows(PostRecvException.class, () -> q.postRecv(List.of(
                new RecvWr(1, new Sge(0x1000, 8, 1)), new RecvWr(2, new Sge(0x1000, 8, 1)), wide)));
        assertEquals(2, e.badWrIndex());
        assertEquals(List.of(2), binding.postedLengths);
        String call = binding.calls.getFirst();
        assertTrue(call.startsWith("postRecv " + POST_RECV + " " + QP + " "), call);
        long wrs = Long.parseLong(call.substring(call.lastIndexOf(' ') + 1));
        assertEquals(2L, binding.getLong(wrs + ibv_recv_wr.SIZEOF + ibv_recv_wr.wr_id$off));
        assertThrows(NullPointerException.class, () -> q.postRecv(java.util.Arrays.asList(
                new RecvWr(1, new Sge(0x1000, 8, 1)), null)));
        assertEquals(List.of(2), binding.postedLengths, "a null element throws before anything is posted");
        q.close();
    }

    @Test
    @DisplayName("after close every QP method throws IllegalStateException and calls nothing")
    void closedQp() {
        NativeQueuePair q = qp(4, 1, 4, 1);
        state(QpState.RTS);
        q.close();
        binding.calls.clear();
        assertThrows(IllegalStateException.class, () -> q.postSend(write(1, 1)));
        assertThrows(IllegalStateException.class, () -> q.postRecv(new RecvWr(1, new Sge(0x1000, 8, 1))));
        assertThrows(IllegalStateException.class, q::state);
        assertThrows(IllegalStateException.class, q::query);
        assertThrows(IllegalStateException.class, () -> q.modify(new QpAttributes().state(QpState.INIT)));
        assertThrows(IllegalStateException.class, q::startWr);
        assertTrue(binding.calls.isEmpty(), binding.calls.toString());
    }

    @Test
    @DisplayName("modify refuses a port the device does not have before ibv_modify_qp; the state is ibv_qp.state")
    void modify() {
        NativeQueuePair q = qp(4, 1, 4, 1);
        assertThrows(IllegalArgumentException.class, () -> q.modify(new QpAttributes().state(QpState.INIT).port(2)
                .pkeyIndex(0).accessFlags(0)));
        assertTrue(binding.calls.isEmpty(), binding.calls.toString());
        q.modify(new QpAttributes().state(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(5).rqPsn(0)
                .maxDestRdAtomic(1).minRnrTimer(1).ahAttr(new AhAttributes(null, 0, 0, 0, 0, 1)));
        assertTrue(binding.calls.getFirst().startsWith("modifyQp " + QP), binding.calls.toString());
        state(QpState.RTR);
        assertEquals(QpState.RTR, q.state());
        binding.memory.put(QP + ibv_qp.state$off, 42);
        assertEquals(QpState.UNKNOWN, q.state());
        q.close();
    }

    @Test
    @DisplayName("an SRQ posts through post_srq_recv with the shared poster; its QP refuses postRecv; closed, it calls nothing")
    void sharedReceiveQueue() {
        binding.nextObject = SRQ;
        SharedReceiveQueue s = NativeQueuePairs.createSrq(context, pd, PD, new SrqInitAttributes(4, 1, 0));
        assertEquals(NativeKind.SRQ, context.tracked.get(SRQ));
        assertEquals(0, s.srqNum(), "no get_srq_num op");
        binding.calls.clear();
        binding.nextObject = QP;
        binding.queryQpResult = -Errno.EINVAL;
        QueuePair q = NativeQueuePairs.createQp(context, pd, PD, pd.regions,
                QpInitAttributes.builder(QpType.RC).cq(cq).srq(s).build());
        state(QpState.INIT);
        assertThrows(IllegalStateException.class, () -> q.postRecv(new RecvWr(1, new Sge(0x1000, 8, 1))));
        binding.calls.clear();
        RecvWr wide = new RecvWr().wrId(3).sgList(new Sge(0x1000, 8, 1), new Sge(0x2000, 8, 1));
        PostRecvException e = assertThrows(PostRecvException.class,
                () -> s.postRecv(List.of(new RecvWr(1, new Sge(0x1000, 8, 1)), wide)));
        assertEquals("ibv_post_srq_recv", e.verb());
        assertEquals(1, e.badWrIndex());
        assertTrue(binding.calls.getFirst().startsWith("postRecv " + POST_SRQ_RECV + " " + SRQ), binding.calls.toString());
        assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, s::close).errno(), "the QP uses it");
        q.close();
        s.close();
        assertFalse(context.tracked.containsKey(SRQ));
        binding.calls.clear();
        assertThrows(IllegalStateException.class, () -> s.postRecv(new RecvWr(1, new Sge(0x1000, 8, 1))));
        assertThrows(IllegalStateException.class, s::query);
        assertThrows(IllegalStateException.class, () -> s.armLimit(1));
        assertTrue(binding.calls.isEmpty(), binding.calls.toString());
    }

    @Test
    @DisplayName("a bind posted in a list records its window only after the post's holds end: a close of the window "
            + "racing the post neither deadlocks with it nor lets the library read a destroyed window")
    void bindInAListAndACloseOfItsWindow() throws InterruptedException {
        NativeQueuePair q = qp(8, 1, 8, 1);
        state(QpState.RTS);
        try (Arena arena = Arena.ofShared()) {
            NativeMemoryRegion r = new NativeMemoryRegion(context, pd, pd.regions, 0xb000, arena.allocate(64),
                    AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            binding.memory.put(0xc000L + ibv_mw.rkey$off, 0x500);
            NativeMemoryWindow w = new NativeMemoryWindow(context, pd, 0xc000, MwType.TYPE_2);
            AtomicReference<Thread> closer = new AtomicReference<>();
            AtomicBoolean closing = new AtomicBoolean();
            binding.duringPost = () -> {
                // The library is reading the WR list: another thread closes the window now, and must wait.
                Thread t = new Thread(w::close, "closer");
                t.setDaemon(true);
                closer.set(t);
                t.start();
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (w.enterCall()) {
                    w.exitCall();
                    if (System.nanoTime() > deadline) {
                        return;
                    }
                    Thread.onSpinWait();
                }
                closing.set(true);
                assertFalse(w.isClosed(), "the window was destroyed while the library read the bind");
            };
            SendWr bind = new SendWr().wrId(1).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(w, 0x501, new MwBindInfo(r, r.address(), 64, AccessFlags.REMOTE_READ));
            Thread poster = new Thread(() -> q.postSend(List.of(bind)), "poster");
            poster.setDaemon(true);
            poster.start();
            poster.join(10_000);
            binding.duringPost = null;
            assertTrue(closing.get(), "the close began while the post held the window");
            assertFalse(poster.isAlive(), "the post deadlocked with the window's close");
            closer.get().join(10_000);
            assertFalse(closer.get().isAlive(), "the window's close deadlocked with the post");
            assertTrue(w.isClosed());
        }
    }
}
