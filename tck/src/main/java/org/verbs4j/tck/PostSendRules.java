package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostSendException;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * {@code ibv_post_send(3)}: the opcode x QP-type table cell by cell, the list stopping at the first bad WR
 * ({@code bad_wr}) with the earlier WRs posted, the send flags, the QP states that accept sends, and a
 * full send queue.
 */
public abstract class PostSendRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected PostSendRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    static Stream<Arguments> tableCells() {
        List<Arguments> cells = new ArrayList<>();
        for (WrOpcode op : SeedTable.postSendOpcodes()) {
            for (QpType t : new QpType[] {QpType.RC, QpType.UC, QpType.UD}) {
                cells.add(Arguments.of(op, t));
            }
        }
        return cells.stream();
    }

    private static PostSendException postSendError(String rule, Runnable call, int errno) {
        VerbsException e = Expect.errno(rule, call::run, errno);
        assertInstanceOf(PostSendException.class, e, rule + ": postSend reports a PostSendException with bad_wr");
        return (PostSendException) e;
    }

    /** A WR of {@code op} from a to b that is valid in every field, ready to post on a. */
    private SendWr validWr(QpPair p, WrOpcode op, MemoryRegion local, MemoryRegion remote) {
        SendWr wr = p.address(new SendWr().wrId(op.ordinal() + 1).opcode(op).sendFlags(SendFlags.SIGNALED));
        switch (op) {
            case SEND, SEND_WITH_IMM -> wr.sgList(Sge.of(local, 0, 16)).immData(0x77);
            case SEND_WITH_INV -> wr.sgList(Sge.of(local, 0, 16)).invalidateRkey(remote.rkey());
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ ->
                    wr.sgList(Sge.of(local, 0, 16)).rdma(remote.address(), remote.rkey()).immData(0x78);
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD ->
                    wr.sgList(Sge.of(local, 0, 8)).atomic(remote.address(), 0, 1, remote.rkey());
            case LOCAL_INV -> wr.invalidateRkey(local.rkey());
            case BIND_MW -> {
                if (!caps().supports(MwType.TYPE_2)) {
                    return wr.bindMw(null, 0, null);
                }
                MemoryWindow mw = tb.pd().allocMw(MwType.TYPE_2);
                MemoryRegion target = tb.buffer(256, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
                wr.bindMw(mw, MemoryWindow.incRkey(mw.rkey()),
                        new MwBindInfo(target, target.address(), 256, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE));
            }
            case TSO -> wr.sgList(Sge.of(local, 0, 16)).tso(tb.memory(64), 64);
            default -> throw new IllegalStateException("not in the ibv_post_send(3) table: " + op);
        }
        return wr;
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("tableCells")
    @DisplayName("required_ postSend accepts an opcode exactly where the ibv_post_send(3) table marks it, else fails with EINVAL at bad_wr 0 [ibv_post_send(3) opcode table]")
    void required_opcodeTable(WrOpcode op, QpType type) {
        assumeQp(type);
        boolean inTable = SeedTable.postSendAllows(op, type);
        if (inTable) {
            assumeOp(type, op);
            if (op == WrOpcode.BIND_MW) {
                assumeMw(MwType.TYPE_2);
            }
        }
        QpPair p = tb.pair(type);
        MemoryRegion local = tb.buffer(64);
        MemoryRegion remote = p.remoteBuffer(64);
        MemoryRegion rbuf = p.remoteBuffer(128);
        p.recvB(1, rbuf, 0, 128);
        SendWr wr = validWr(p, op, local, remote);
        if (!inTable) {
            PostSendException e = postSendError(op + " on " + type + " (not in the table)", () -> p.a().postSend(wr), Errno.EINVAL);
            assertEquals(0, e.badWrIndex(), "bad_wr of a one-WR list");
            Completions.assertNone(p.cqA(), "the refused WR must not execute");
            return;
        }
        p.a().postSend(wr);
        WorkCompletion wc = Completions.awaitOne(p.cqA(), op + " on " + type);
        assertEquals(wr.wrId(), wc.wrId());
        if (op != WrOpcode.LOCAL_INV && op != WrOpcode.SEND_WITH_INV && op != WrOpcode.TSO) {
            assertEquals(WcStatus.SUCCESS, wc.status(), op + " on " + type + " with valid fields");
            assertEquals(WcOpcode.forSend(op), wc.opcode());
        }
    }

    private SendWr write(QpPair p, long wrId, MemoryRegion src, MemoryRegion dst, long dstOffset) {
        return p.wr(wrId, WrOpcode.RDMA_WRITE, src, 0, 16).rdma(dst.address() + dstOffset, dst.rkey());
    }

    @ParameterizedTest(name = "max_send_wr {0}")
    @ValueSource(ints = {8, DEEP_QUEUE})
    @DisplayName("required_ a postSend list longer than the send queue's room, on a QP whose first SEND waits (RNR, retried forever) with 3 WRs already outstanding, fails with ENOMEM or ENOSPC at the first WR that does not fit: bad_wr is its index, at least max_send_wr - 3, and exactly the WRs before it execute once receives are posted (a BIND_MW past it leaves its window's rkey as it was); with a queue deeper than 256 the room ends past the list's 256th WR [ibv_post_send(3) bad_wr, ENOMEM]")
    void required_listBeyondTheQueueNamesTheFirstWrLeftOut(int maxSendWr) {
        assumeOp(QpType.RC, WrOpcode.SEND);
        assumeQueueDepth(maxSendWr);
        // No receive at b yet, and rnr_retry 7: the first SEND waits and every WR behind it stays outstanding.
        QpPair p = tb.pair(QpType.RC,
                b -> b.maxSendWr(maxSendWr).maxRecvWr(maxSendWr).maxSendSge(1).maxRecvSge(1), 7);
        int granted = p.a().initAttributes().cap().maxSendWr();
        MemoryRegion src = tb.buffer(64);
        // Three WRs first, so that the room ends inside the list's first max_send_wr WRs, not at their end.
        int before = 3;
        for (int i = 0; i < before; i++) {
            p.a().postSend(new SendWr().wrId(PRE_POSTED + i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(src, 0, 8)));
        }
        // Twice the queue and one more: beyond any rounding up of max_send_wr a device may make.
        int n = 2 * granted + 1;
        List<SendWr> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(src, 0, 8)));
        }
        // Where the device has type 2 windows, WR max_send_wr - 1, past the room, binds one: never posted, it
        // must leave the window's rkey as it was.
        MemoryWindow mw = null;
        int rkeyBefore = 0;
        if (caps().supports(MwType.TYPE_2) && caps().supports(QpType.RC, WrOpcode.BIND_MW)) {
            mw = tb.pd().allocMw(MwType.TYPE_2);
            rkeyBefore = mw.rkey();
            MemoryRegion target = tb.buffer(4096, Testbed.ALL_ACCESS | AccessFlags.MW_BIND);
            list.set(granted - 1, new SendWr().wrId(granted - 1).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(mw, MemoryWindow.incRkey(rkeyBefore), new MwBindInfo(target, target.address(), 4096,
                            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE)));
        }
        VerbsException e = Expect.errno(n + " SENDs behind " + before + " on a send queue of max_send_wr " + granted,
                () -> p.a().postSend(list), Errno.ENOMEM, Errno.ENOSPC);
        assertInstanceOf(PostSendException.class, e, "postSend reports a PostSendException with bad_wr");
        int bad = ((PostSendException) e).badWrIndex();
        assertTrue(bad >= granted - before && bad < n, "bad_wr " + bad + " must be the first SEND past the queue's "
                + granted + " or more slots, " + before + " of them taken, below " + n);

        MemoryRegion dst = p.remoteBuffer(64);
        Set<Long> done = new HashSet<>();
        for (int i = 0; i < before + bad; i++) {
            p.recvB(1000 + i, dst, 0, 64);
            WorkCompletion wc = Completions.awaitOne(p.cqA(), "SEND " + i + " of the " + (before + bad) + " posted");
            assertEquals(WcStatus.SUCCESS, wc.status(), "a SEND before bad_wr: " + wc);
            long id = wc.wrId();
            assertTrue((id < bad || id >= PRE_POSTED && id < PRE_POSTED + before) && done.add(id),
                    "each SEND posted before bad_wr completes once: " + wc);
            if (wc.opcode() != WcOpcode.BIND_MW) {
                Completions.awaitOne(p.cqB(), "the receive of SEND " + i);
            }
        }
        p.recvB(2000, dst, 0, 64);
        Completions.assertNone(p.cqA(), "no SEND from bad_wr on was posted");
        Completions.assertNone(p.cqB(), "the receive posted after them stays unused");
        // A device with more room than max_send_wr posted the BIND_MW (it completed above): nothing to check.
        if (mw != null && granted - 1 >= bad) {
            assertEquals(rkeyBefore, mw.rkey(), "the rkey of a window whose BIND_MW, WR " + (granted - 1)
                    + " past bad_wr " + bad + ", was not posted");
        }
    }

    @Test
    @DisplayName("required_ a WR list stops at the first bad WR: its index is reported, the WRs before it are posted and complete, the ones after are not [ibv_post_send(3) DESCRIPTION]")
    void required_listStopsAtFirstBad() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(16);
        Data.fill(src, 31);
        MemoryRegion dst = p.remoteBuffer(64);
        List<SendWr> list = List.of(write(p, 1, src, dst, 0), write(p, 2, src, dst, 16),
                p.wr(3, WrOpcode.TSO, src, 0, 16), write(p, 4, src, dst, 32));
        PostSendException e = postSendError("a list with TSO (invalid on RC) at index 2", () -> p.a().postSend(list), Errno.EINVAL);
        assertEquals(2, e.badWrIndex(), "bad_wr must be the TSO WR");
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 2, "the two WRs before bad_wr");
        assertEquals(List.of(1L, 2L), wcs.stream().map(WorkCompletion::wrId).toList());
        Data.assertPattern("WR 0's data", dst.segment(), 0, 16, 31, 0);
        Data.assertPattern("WR 1's data", dst.segment(), 16, 16, 31, 0);
        Completions.assertNone(p.cqA(), "WRs after bad_wr were not posted");
        Data.assertFilled("WR 3 (after bad_wr) must not execute", dst.segment(), 32, 32, (byte) 0);
    }

    @Test
    @DisplayName("required_ a bad first WR posts nothing of the list [ibv_post_send(3) bad_wr]")
    void required_badFirstPostsNothing() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(64);
        List<SendWr> list = List.of(p.wr(1, WrOpcode.TSO, src, 0, 16), write(p, 2, src, dst, 0));
        assertEquals(0, postSendError("TSO first", () -> p.a().postSend(list), Errno.EINVAL).badWrIndex());
        Completions.assertNone(p.cqA(), "nothing of the list may be posted");
    }

    @Test
    @DisplayName("required_ a WR with more SGEs than max_send_sge fails with EINVAL [ibv_post_send(3), ibv_create_qp(3) max_send_sge]")
    void required_tooManySges() {
        QpPair p = tb.pair(QpType.RC);
        int max = p.a().initAttributes().cap().maxSendSge();
        MemoryRegion src = tb.buffer(8L * (max + 1));
        MemoryRegion dst = p.remoteBuffer(8L * (max + 1));
        Sge[] sges = new Sge[max + 1];
        for (int i = 0; i <= max; i++) {
            sges[i] = Sge.of(src, 8L * i, 8);
        }
        SendWr wr = p.wr(1, WrOpcode.RDMA_WRITE, src, 0, 8).sgList(sges).rdma(dst.address(), dst.rkey());
        assertEquals(0, postSendError((max + 1) + " SGEs", () -> p.a().postSend(wr), Errno.EINVAL).badWrIndex());
    }

    @Test
    @DisplayName("required_ an INLINE WR longer than max_inline_data fails with EINVAL [ibv_post_send(3) IBV_SEND_INLINE, ibv_create_qp(3)]")
    void required_inlineTooLong() {
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(Math.min(64, caps().maxInlineData())));
        int granted = p.a().initAttributes().cap().maxInlineData();
        MemoryRegion src = tb.buffer(granted + 1);
        MemoryRegion dst = p.remoteBuffer(granted + 1);
        SendWr wr = p.wr(1, WrOpcode.RDMA_WRITE, src, 0, granted + 1).rdma(dst.address(), dst.rkey())
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE);
        postSendError("INLINE of max_inline_data + 1 bytes", () -> p.a().postSend(wr), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ with INLINE the buffer may be reused as soon as postSend returns [ibv_post_send(3): the buffer can be reused immediately]")
    void required_inlineBufferReusable() {
        assumeTrue(caps().maxInlineData() >= 32, "capability: less than 32 bytes of inline data");
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(32));
        MemoryRegion src = tb.buffer(32);
        Data.fill(src, 32);
        MemoryRegion dst = p.remoteBuffer(32);
        p.a().postSend(p.wr(1, WrOpcode.RDMA_WRITE, src, 0, 32).rdma(dst.address(), dst.rkey())
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE));
        src.segment().fill((byte) 0x33);
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the inline WRITE").status());
        Data.assertPattern("the data as it was at postSend", dst.segment(), 0, 32, 32, 0);
    }

    @Test
    @DisplayName("required_ each INLINE WR of one postSend list carries its own data, though all are copied before any executes [ibv_post_send(3) IBV_SEND_INLINE]")
    void required_inlineListKeepsEachWrsData() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(16));
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 37);
        MemoryRegion dst = p.remoteBuffer(64);
        p.a().postSend(List.of(
                p.wr(1, WrOpcode.RDMA_WRITE, src, 0, 16).rdma(dst.address(), dst.rkey()).sendFlags(SendFlags.INLINE),
                p.wr(2, WrOpcode.RDMA_WRITE, src, 16, 16).rdma(dst.address() + 16, dst.rkey()).sendFlags(SendFlags.INLINE),
                p.wr(3, WrOpcode.RDMA_WRITE, src, 32, 16).rdma(dst.address() + 32, dst.rkey())
                        .sendFlags(SendFlags.INLINE | SendFlags.SIGNALED)));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the last inline WRITE").status());
        Data.assertPattern("three inline WRITEs, each with its own 16 bytes", dst.segment(), 0, 48, 37, 0);
    }

    @Test
    @DisplayName("required_ with INLINE the lkey is not checked [ibv_post_send(3): The L_Key will not be checked]")
    void required_inlineIgnoresLkey() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(16));
        MemorySegment raw = tb.buffer(16).segment();
        Data.fill(raw, 34);
        MemoryRegion dst = p.remoteBuffer(16);
        WorkCompletion wc = p.postA(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).sgList(new Sge(raw.address(), 16, 0xBAD0BAD))
                .rdma(dst.address(), dst.rkey()));
        assertEquals(WcStatus.SUCCESS, wc.status(), "an inline WR whose SGE has a bogus lkey");
        Data.assertPattern("inline data", dst.segment(), 0, 16, 34, 0);
    }

    @ParameterizedTest(name = "in {0}")
    @EnumSource(value = QpState.class, names = {"RESET", "INIT", "RTR"})
    @DisplayName("required_ postSend on a QP in RESET, INIT or RTR fails with EINVAL [ibv_post_send(3), IBA 10.3.1: sends from RTS only]")
    void required_postSendNeedsRts(QpState state) {
        CompletionQueue cq = tb.cq(8);
        QueuePair qp = tb.qp(QpType.RC, cq, null);
        QueuePair peer = tb.qp(QpType.RC, cq, null);
        if (state != QpState.RESET) {
            tb.toInit(qp);
        }
        if (state == QpState.RTR) {
            tb.toRtr(qp, peer.qpNum());
        }
        MemoryRegion buf = tb.buffer(64);
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(buf, 0, 8)).rdma(buf.address() + 32, buf.rkey());
        assertEquals(0, postSendError("postSend in " + state, () -> qp.postSend(wr), Errno.EINVAL).badWrIndex());
        Completions.assertNone(cq, "a WR refused in " + state);
    }

    @Test
    @DisplayName("required_ a WR posted on a QP in ERR completes with WR_FLUSH_ERR [IBA 10.3.1.2: the error state flushes WRs]")
    void required_postInErrFlushes() {
        QpPair p = tb.pair(QpType.RC);
        p.a().modify(QpAttributes.toState(QpState.ERR));
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        p.a().postSend(p.wr(5, WrOpcode.RDMA_WRITE, buf, 0, 8).rdma(dst.address() + 32, dst.rkey()));
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the WR posted in ERR");
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
        assertEquals(5, wc.wrId());
    }

    @Test
    @DisplayName("required_ an unsignaled WR on a QP without sq_sig_all gives no completion but executes [ibv_post_send(3) IBV_SEND_SIGNALED]")
    void required_unsignaled() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(16);
        Data.fill(src, 35);
        MemoryRegion dst = p.remoteBuffer(32);
        p.a().postSend(write(p, 1, src, dst, 0).sendFlags(0));
        p.a().postSend(write(p, 2, src, dst, 16));
        assertEquals(2, Completions.awaitOne(p.cqA(), "the signaled WR").wrId());
        Completions.assertNone(p.cqA(), "the unsignaled WR");
        Data.assertPattern("the unsignaled WR's data", dst.segment(), 0, 16, 35, 0);
    }

    @Test
    @DisplayName("required_ with sq_sig_all every WR completes, SIGNALED or not [ibv_post_send(3): relevant only if sq_sig_all=0]")
    void required_sqSigAll() {
        QpPair p = tb.pair(QpType.RC, b -> b.sqSigAll(true));
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(32);
        p.a().postSend(write(p, 1, src, dst, 0).sendFlags(0));
        assertEquals(1, Completions.awaitOne(p.cqA(), "an unsignaled WR on sq_sig_all").wrId());
    }

    @Test
    @DisplayName("required_ SOLICITED on RDMA WRITE with immediate wakes a solicited-only CQ [ibv_post_send(3) IBV_SEND_SOLICITED]")
    void required_solicitedWriteImm() {
        assumeTrue(caps().completionChannel(), "capability: the device has no completion channels");
        Testbed far = tb.peer();
        CompletionChannel ch = far.context().createCompletionChannel();
        CompletionQueue cqB = far.context().createCq(16, ch, 0);
        CompletionQueue cqA = tb.cq(16);
        QueuePair a = tb.qp(QpType.RC, cqA, null);
        QueuePair b = far.qp(QpType.RC, cqB, null);
        tb.bringUp(a, b.qpNum(), 7, far);
        far.bringUp(b, a.qpNum(), 7, tb);
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion rbuf = far.buffer(64);
        b.postRecv(new org.verbs4j.RecvWr(1, Sge.of(rbuf, 0, 8)));
        cqB.requestNotify(true);
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED)
                .sgList(Sge.of(buf, 32, 8)).rdma(rbuf.address() + 16, rbuf.rkey()).immData(3));
        assertSame(cqB, ch.awaitEvent(Completions.timeoutMs(), TimeUnit.MILLISECONDS), "the solicited event");
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, Completions.awaitOne(cqB, "the receive").opcode());
    }

    @Test
    @DisplayName("required_ FENCE on RC holds a WR until the prior RDMA READ completed, so it sends the data read [ibv_post_send(3) IBV_SEND_FENCE]")
    void required_fence() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion remote = p.remoteBuffer(4096);
        Data.fill(remote, 36);
        MemoryRegion local = tb.buffer(4096);
        MemoryRegion out = p.remoteBuffer(4096);
        p.a().postSend(p.wr(1, WrOpcode.RDMA_READ, local, 0, 4096).rdma(remote.address(), remote.rkey()));
        p.a().postSend(p.wr(2, WrOpcode.RDMA_WRITE, local, 0, 4096).rdma(out.address(), out.rkey())
                .sendFlags(SendFlags.SIGNALED | SendFlags.FENCE));
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 2, "READ then fenced WRITE");
        assertEquals(List.of(1L, 2L), wcs.stream().map(WorkCompletion::wrId).toList());
        assertTrue(wcs.stream().allMatch(w -> w.status() == WcStatus.SUCCESS), "statuses " + wcs);
        Data.assertPattern("the fenced WRITE sent what the READ fetched", out.segment(), 0, 4096, 36, 0);
    }

    @Test
    @DisplayName("required_ IP_CSUM on a device without checksum offload fails with EINVAL [ibv_post_send(3): valid only when device_cap_flags indicates]")
    void required_ipCsumNeedsCapability() {
        assumeFalse(caps().ipCsum(), "capability: the device offloads checksums, so IP_CSUM is valid");
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion buf = tb.buffer(64);
        SendWr wr = p.wr(1, WrOpcode.SEND, buf, 0, 16).sendFlags(SendFlags.SIGNALED | SendFlags.IP_CSUM);
        postSendError("IP_CSUM without the capability", () -> p.a().postSend(wr), Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ send flags outside ibv_send_flags are refused [ibv_post_send(3) send_flags]")
    void required_unknownFlags() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = tb.buffer(64);
        SendWr wr = write(p, 1, buf, p.remoteBuffer(64), 32).sendFlags(SendFlags.SIGNALED | (1 << 20));
        Expect.refused("send_flags with bit 20", () -> p.a().postSend(wr));
        Completions.assertNone(p.cqA(), "a WR with unknown flags must not execute");
    }

    @Test
    @DisplayName("required_ a full send queue refuses the next WR with ENOMEM, after at least max_send_wr were accepted [ibv_post_send(3) RETURN VALUE]")
    void required_fullSendQueue() {
        // No receive is ever posted on b and RNR retries are endless, so the first SEND holds the queue.
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendWr(8), 7);
        int granted = p.a().initAttributes().cap().maxSendWr();
        MemoryRegion buf = tb.buffer(64);
        int posted = 0;
        try {
            for (; posted <= granted; posted++) {
                p.a().postSend(p.wr(posted, WrOpcode.SEND, buf, 0, 8));
            }
            fail("postSend accepted " + posted + " WRs on a send queue granted " + granted + " entries");
        } catch (VerbsException e) {
            assertEquals(Errno.ENOMEM, e.errno(), "a full send queue: " + e);
            assertTrue(posted >= 8, "only " + posted + " WRs fit in a queue of max_send_wr 8");
        }
    }

    @Test
    @DisplayName("required_ an empty list posts nothing and does not fail [ibv_post_send(3)]")
    void required_emptyList() {
        QpPair p = tb.pair(QpType.RC);
        p.a().postSend(List.of());
        Completions.assertNone(p.cqA(), "an empty list");
    }

    @Test
    @DisplayName("required_ a SendWr may be posted again after its completion, as the same WR [SendWr: mutable and reusable]")
    void required_reuseSendWr() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(32);
        SendWr wr = write(p, 1, src, dst, 0);
        assertEquals(WcStatus.SUCCESS, p.postA(wr).status());
        wr.wrId(2).rdma(dst.address() + 16, dst.rkey());
        WorkCompletion second = p.postA(wr);
        assertEquals(2, second.wrId());
        assertEquals(WcStatus.SUCCESS, second.status());
    }

    @Test
    @DisplayName("required_ a UD WR without an address handle is refused [ibv_post_send(3) wr.ud]")
    void required_udNeedsAh() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion buf = tb.buffer(64);
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(buf, 0, 8));
        Expect.refused("UD SEND without ud()", () -> p.a().postSend(wr));
    }

    @Test
    @DisplayName("required_ WRs of one list complete in list order [ibv_post_send(3), IBA 10.8.3 ordering]")
    void required_listOrder() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(16 * 10);
        List<SendWr> list = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            list.add(write(p, 50 + i, src, dst, 16L * i));
        }
        p.a().postSend(list);
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 10, "10 WRITEs");
        for (int i = 0; i < 10; i++) {
            assertEquals(50 + i, wcs.get(i).wrId());
        }
    }

    @Test
    @DisplayName("required_ postSend lists and WR sessions from several threads on one QP lose and duplicate no WR: each completes once and writes its own bytes [ibv_post_send(3), ibv_wr_post(3) CONCURRENCY]")
    void required_concurrentPostersNoLossNoDuplicate() throws Exception {
        boolean sessions = caps().wrSession();
        int threads = 4;
        int lists = 10;
        int perList = 4;
        int total = threads * lists * perList;
        // Room for every WR at once: the rule is about the posters sharing the send queue, not about its depth.
        QpPair p = tb.pair(QpType.RC, b -> {
            b.maxSendWr(total);
            if (sessions) {
                b.sendOps(WrOpcode.RDMA_WRITE);
            }
        });
        MemoryRegion src = tb.buffer(8L * total);
        MemoryRegion dst = p.remoteBuffer(8L * total);
        for (int i = 0; i < total; i++) {
            Data.u64(src.segment(), 8L * i, 0x2000_0000L + i);
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t * lists * perList;
                // Odd threads post through a session where the device has one (it holds the send queue across its
                // calls), even threads post lists; every thread's WRs cover their own 8-byte slots.
                boolean session = sessions && (t & 1) == 1;
                fs.add(pool.submit(() -> {
                    for (int l = 0; l < lists; l++) {
                        int base = first + l * perList;
                        if (session) {
                            WrSession s = p.a().startWr();
                            for (int i = base; i < base + perList; i++) {
                                s.wrId(i);
                                s.wrFlags(SendFlags.SIGNALED);
                                s.rdmaWrite(dst.rkey(), dst.address() + 8L * i);
                                s.setSge(src.lkey(), src.address() + 8L * i, 8);
                            }
                            s.complete();
                        } else {
                            List<SendWr> list = new ArrayList<>();
                            for (int i = base; i < base + perList; i++) {
                                list.add(p.wr(i, WrOpcode.RDMA_WRITE, src, 8L * i, 8)
                                        .rdma(dst.address() + 8L * i, dst.rkey()));
                            }
                            p.a().postSend(list);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(Completions.timeoutMs(), TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<WorkCompletion> wcs = Completions.await(p.cqA(), total, "every thread's WRs");
        Set<Long> ids = new HashSet<>();
        for (WorkCompletion wc : wcs) {
            assertEquals(WcStatus.SUCCESS, wc.status(), "completion " + wc);
            assertTrue(ids.add(wc.wrId()), "wr_id " + wc.wrId() + " completed twice");
        }
        for (int i = 0; i < total; i++) {
            assertEquals(0x2000_0000L + i, Data.u64(dst.segment(), 8L * i), "the bytes of WR " + i);
        }
        Completions.assertNone(p.cqA(), "no completion beyond one per WR");
    }

    @Test
    @DisplayName("required_ RDMA READ and atomics are refused on UC with EINVAL [ibv_post_send(3) table: UC has no READ or atomics]")
    void required_ucRestrictions() {
        assumeQp(QpType.UC);
        QpPair p = tb.pair(QpType.UC);
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        for (WrOpcode op : List.of(WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD)) {
            SendWr wr = p.wr(1, op, buf, 0, 8).rdma(dst.address() + 32, dst.rkey());
            assertEquals(0, postSendError(op + " on UC", () -> p.a().postSend(wr), Errno.EINVAL).badWrIndex());
        }
        assertNotEquals(QpState.ERR, p.a().query().state(), "a refused post must not move the QP to ERR");
    }

    // ---------------------------------------------------------------- limits from both sides

    @ParameterizedTest(name = "max_send_wr {0}")
    @ValueSource(ints = {8, DEEP_QUEUE})
    @DisplayName("required_ a list of exactly max_send_wr WRs on an empty send queue is accepted whole, and each executes in order; then a list of one WR less, which executes whole and writes nothing past its last WR; with a queue deeper than 256, WRs past the list's 256th too [ibv_create_qp(3) cap.max_send_wr, ibv_post_send(3) ENOMEM only when the queue is full]")
    void required_listOfExactlyMaxSendWr(int maxSendWr) {
        assumeQueueDepth(maxSendWr);
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendWr(maxSendWr));
        int granted = p.a().initAttributes().cap().maxSendWr();
        assumeTrue(granted <= 4 * maxSendWr, "the device granted " + granted + " send WRs for " + maxSendWr);
        MemoryRegion src = tb.buffer(8L * granted);
        MemoryRegion dst = p.remoteBuffer(8L * granted);
        // The second list, one WR shorter, ends inside an array of 256 where the device grants a multiple of 256.
        for (int length : new int[] {granted, granted - 1}) {
            long pattern = (long) length << 32;
            // Every WR is signaled where the CQ's 256 entries hold them all; else every 32nd and the last, which
            // on RC completes only after every WR before it.
            boolean every = length <= 200;
            List<SendWr> list = new ArrayList<>();
            List<Long> signaled = new ArrayList<>();
            for (int i = 0; i < length; i++) {
                Data.u64(src.segment(), 8L * i, pattern + i);
                boolean signal = every || i % 32 == 31 || i == length - 1;
                list.add(p.wr(i, WrOpcode.RDMA_WRITE, src, 8L * i, 8).rdma(dst.address() + 8L * i, dst.rkey())
                        .sendFlags(signal ? SendFlags.SIGNALED : 0));
                if (signal) {
                    signaled.add((long) i);
                }
            }
            p.a().postSend(list);
            List<WorkCompletion> wcs = Completions.await(p.cqA(), signaled.size(),
                    length + " WRITEs, of a send queue of " + granted + " (" + signaled.size() + " signaled)");
            for (int k = 0; k < signaled.size(); k++) {
                assertEquals(signaled.get(k), wcs.get(k).wrId(), "signaled completion " + k + " of " + length);
                assertEquals(WcStatus.SUCCESS, wcs.get(k).status(), "WRITE " + signaled.get(k) + " of " + length);
            }
            for (int i = 0; i < length; i++) {
                assertEquals(pattern + i, Data.u64(dst.segment(), 8L * i),
                        "the 8 bytes WRITE " + i + " of " + length + " carried");
            }
        }
        assertEquals(((long) granted << 32) + granted - 1, Data.u64(dst.segment(), 8L * (granted - 1)),
                "the shorter list wrote past its last WR");
    }

    /** The wr_ids of WRs posted before a list whose WRs are numbered from 0. */
    private static final long PRE_POSTED = 1L << 40;

    /** The deep queue of the boundary rules: more WRs than a provider may write in one array (256). */
    static final int DEEP_QUEUE = 300;

    @Test
    @DisplayName("required_ in one postSend list each WR gathers its own SGEs, in SGE order: 4 WRITEs of 3 SGEs each (taken out of address order) land their own 12 bytes and nothing past them [ibv_post_send(3) sg_list, num_sge]")
    void required_listOfMultiSgeWrsGathersEach() {
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendSge(3));
        assumeTrue(p.a().initAttributes().cap().maxSendSge() >= 3, "capability: fewer than 3 send SGEs");
        int wrs = 4;
        MemoryRegion src = tb.buffer(16L * wrs);
        Data.fill(src, 67);
        MemoryRegion dst = p.remoteBuffer(16L * wrs);
        List<SendWr> list = new ArrayList<>();
        for (int w = 0; w < wrs; w++) {
            long at = 16L * w;
            list.add(new SendWr().wrId(w).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(src, at, 4), Sge.of(src, at + 8, 4), Sge.of(src, at + 4, 4))
                    .rdma(dst.address() + at, dst.rkey()));
        }
        p.a().postSend(list);
        for (WorkCompletion wc : Completions.await(p.cqA(), wrs, wrs + " WRITEs of 3 SGEs")) {
            assertEquals(WcStatus.SUCCESS, wc.status(), "a WRITE of 3 SGEs: " + wc);
        }
        for (int w = 0; w < wrs; w++) {
            long at = 16L * w;
            Data.assertPattern("WRITE " + w + "'s first SGE", dst.segment(), at, 4, 67, at);
            Data.assertPattern("WRITE " + w + "'s second SGE", dst.segment(), at + 4, 4, 67, at + 8);
            Data.assertPattern("WRITE " + w + "'s third SGE", dst.segment(), at + 8, 4, 67, at + 4);
            Data.assertFilled("past WRITE " + w + "'s 12 bytes", dst.segment(), at + 12, 4, (byte) 0);
        }
    }

    @Test
    @DisplayName("required_ a postSend list of max_send_wr INLINE WRITEs of 3 SGEs each is accepted whole and each lands its own 12 bytes [ibv_post_send(3) IBV_SEND_INLINE, sg_list]")
    void required_listOfInlineWrsWithSeveralSges() {
        assumeTrue(caps().maxInlineData() >= 12, "capability: fewer than 12 bytes of inline data");
        QpPair p = tb.pair(QpType.RC, b -> b.maxSendWr(8).maxSendSge(3).maxInlineData(12));
        QpCapabilities cap = p.a().initAttributes().cap();
        assumeTrue(cap.maxSendSge() >= 3 && cap.maxInlineData() >= 12, "the QP was granted " + cap);
        int granted = cap.maxSendWr();
        assumeTrue(granted <= 200, "the device granted " + granted + " send WRs for 8, more than the CQ's 256 hold");
        MemoryRegion src = tb.buffer(16L * granted);
        Data.fill(src, 68);
        MemoryRegion dst = p.remoteBuffer(16L * granted);
        List<SendWr> list = new ArrayList<>();
        for (int i = 0; i < granted; i++) {
            long at = 16L * i;
            list.add(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
                    .sgList(Sge.of(src, at, 4), Sge.of(src, at + 4, 4), Sge.of(src, at + 8, 4))
                    .rdma(dst.address() + at, dst.rkey()));
        }
        p.a().postSend(list);
        List<WorkCompletion> wcs = Completions.await(p.cqA(), granted, granted + " INLINE WRITEs of 3 SGEs");
        for (int i = 0; i < granted; i++) {
            assertEquals(i, wcs.get(i).wrId(), "completion " + i);
            assertEquals(WcStatus.SUCCESS, wcs.get(i).status(), "INLINE WRITE " + i);
            Data.assertPattern("INLINE WRITE " + i, dst.segment(), 16L * i, 12, 68, 16L * i);
            Data.assertFilled("past INLINE WRITE " + i, dst.segment(), 16L * i + 12, 4, (byte) 0);
        }
    }

    @Test
    @DisplayName("required_ an INLINE WR of exactly max_inline_data bytes is accepted and lands whole [ibv_post_send(3) IBV_SEND_INLINE, ibv_create_qp(3) cap.max_inline_data]")
    void required_inlineOfExactlyMaxInlineData() {
        assumeTrue(caps().maxInlineData() >= 1, "capability: no inline data");
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(Math.min(64, caps().maxInlineData())));
        int granted = p.a().initAttributes().cap().maxInlineData();
        assumeTrue(granted >= 1, "the QP was granted no inline data");
        MemoryRegion src = tb.buffer(granted);
        Data.fill(src, 62);
        MemoryRegion dst = p.remoteBuffer(granted + 16L);
        WorkCompletion wc = p.postA(p.wr(1, WrOpcode.RDMA_WRITE, src, 0, granted).rdma(dst.address(), dst.rkey())
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE));
        assertEquals(WcStatus.SUCCESS, wc.status(), "an INLINE WRITE of max_inline_data (" + granted + ") bytes");
        Data.assertPattern("the inline data", dst.segment(), 0, granted, 62, 0);
        Data.assertFilled("past the inline data", dst.segment(), granted, 16, (byte) 0);
    }

    @Test
    @DisplayName("required_ an INLINE SGE ending at its region's last byte is accepted; one ending a byte past it is refused with EINVAL at post and sends nothing [ibv_post_send(3) IBV_SEND_INLINE, DESIGN.md Memory: the library reads only registered memory]")
    void required_inlineSgeAtRegionEnd() {
        assumeTrue(caps().maxInlineData() >= 16, "capability: less than 16 bytes of inline data");
        QpPair p = tb.pair(QpType.RC, b -> b.maxInlineData(16));
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 63);
        MemoryRegion dst = p.remoteBuffer(64);
        WorkCompletion wc = p.postA(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).sgList(new Sge(src.address() + 48, 16, src.lkey()))
                .rdma(dst.address(), dst.rkey()));
        assertEquals(WcStatus.SUCCESS, wc.status(), "an inline SGE of the region's last 16 bytes");
        Data.assertPattern("the region's last 16 bytes", dst.segment(), 0, 16, 63, 48);
        SendWr past = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
                .sgList(new Sge(src.address() + 49, 16, src.lkey())).rdma(dst.address() + 32, dst.rkey());
        assertEquals(0, postSendError("an inline SGE ending one byte past its region", () -> p.a().postSend(past),
                Errno.EINVAL).badWrIndex());
        Completions.assertNone(p.cqA(), "the refused inline WR");
        Data.assertFilled("the refused inline WR's target", dst.segment(), 32, 32, (byte) 0);
    }

    @Test
    @DisplayName("required_ a UD remote QPN must fit 24 bits: 2^24 or more is refused with EINVAL at post and sends nothing, while the peer's own QPN delivers [ibv_post_send(3) remote_qpn, IBA 9.2 BTH DestQP: 24 bits]")
    void required_udRemoteQpnIs24Bits() {
        assumeQp(QpType.UD);
        QpPair p = tb.pair(QpType.UD);
        MemoryRegion src = tb.buffer(16);
        MemoryRegion dst = p.remoteBuffer(256);
        p.recvB(1, dst, 0, 256);
        for (int qpn : new int[] {p.b().qpNum() | 1 << 24, 0x0100_0000, -1}) {
            SendWr wr = new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(Sge.of(src, 0, 16)).ud(p.ah(), qpn, Testbed.QKEY);
            assertEquals(0, postSendError("UD remote QPN 0x" + Integer.toHexString(qpn), () -> p.a().postSend(wr),
                    Errno.EINVAL).badWrIndex());
        }
        Completions.assertNone(p.cqA(), "the refused UD WRs");
        Completions.assertNone(p.cqB(), "no datagram of a refused WR may arrive");
        assertEquals(WcStatus.SUCCESS, p.send(3, src, 0, 16).status(), "a UD SEND to the peer's 24-bit QPN");
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the datagram to the peer's QPN").status());
    }
}
