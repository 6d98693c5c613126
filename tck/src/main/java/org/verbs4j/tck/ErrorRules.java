package org.verbs4j.tck;

// Over 500 lines on purpose: one TCK area (tck/README.md lists one class per area): each error rule is a short
// method here.

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.verbs4j.AccessFlags;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostRecvException;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;

/**
 * Error completions and their consequences: the status of each fault, the QP moving to ERR, every
 * outstanding WR flushing with WR_FLUSH_ERR, full queues (ENOMEM) and posts in the wrong state (EINVAL).
 */
public abstract class ErrorRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected ErrorRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    /** An lkey or rkey that names no region or window. */
    static final int BAD_KEY = 0x0BADBAD0;

    /** Asserts that {@code qp} reaches {@code expected} within {@link Completions#timeoutMs()}, polling its state. */
    static void assertState(QueuePair qp, QpState expected, String why) {
        long deadline = System.nanoTime() + Completions.timeoutMs() * 1_000_000;
        QpState s = qp.query().state();
        while (s != expected && System.nanoTime() < deadline) {
            Thread.yield();
            s = qp.query().state();
        }
        assertEquals(expected, s, why);
    }

    @Test
    @DisplayName("required_ a send with a bad lkey completes with LOC_PROT_ERR and its wr_id [ibv_poll_cq(3) IBV_WC_LOC_PROT_ERR]")
    void required_badLkey() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = p.remoteBuffer(64);
        p.recvB(1, buf, 0, 64);
        WorkCompletion wc = p.postA(new SendWr().wrId(77).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(buf.address(), 16, BAD_KEY)));
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
        assertEquals(77, wc.wrId());
        assertEquals(p.a().qpNum(), wc.qpNum());
    }

    /** The largest {@code max_msg_sz} the message-size rule allocates (twice, plus one byte each). */
    private static final long MAX_MSG_SZ_TESTED = 64L << 20;

    @Test
    @DisplayName("required_ an RDMA WRITE of exactly the port's max_msg_sz lands, and one byte more is refused: EINVAL at post or LOC_LEN_ERR [ibv_query_port(3) max_msg_sz, ibv_poll_cq(3) IBV_WC_LOC_LEN_ERR, ibv_post_send(3) EINVAL]")
    void required_maxMessageSize() {
        long max = tb.portAttributes().maxMsgSz();
        assumeTrue(max <= MAX_MSG_SZ_TESTED, "capability: max_msg_sz " + max + " is above the "
                + MAX_MSG_SZ_TESTED + " bytes this rule allocates");
        int size = (int) max;
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(size + 1L);
        MemoryRegion dst = p.remoteBuffer(size + 1L);
        Data.fill(src, 62);
        assertEquals(WcStatus.SUCCESS, p.write(1, src, size, dst.address(), dst.rkey()).status(),
                "a WRITE of max_msg_sz (" + size + ") bytes");
        Data.assertSame("a WRITE of max_msg_sz bytes", src.segment(), dst.segment(), size);
        SendWr over = p.wr(2, WrOpcode.RDMA_WRITE, src, 0, size + 1).rdma(dst.address(), dst.rkey());
        try {
            p.a().postSend(over);
        } catch (VerbsException e) {
            assertEquals(Errno.EINVAL, e.errno(), "a WRITE of max_msg_sz + 1 bytes refused at post: " + e);
            Completions.assertNone(p.cqA(), "a WRITE refused at post");
            return;
        }
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the WRITE of max_msg_sz + 1 bytes");
        assertEquals(2, wc.wrId());
        assertEquals(WcStatus.LOC_LEN_ERR, wc.status(), "a WRITE of max_msg_sz + 1 (" + (size + 1L) + ") bytes");
    }

    @Test
    @DisplayName("required_ an RDMA WRITE with a bad rkey completes with REM_ACCESS_ERR and writes nothing [ibv_poll_cq(3) IBV_WC_REM_ACCESS_ERR]")
    void required_badRkeyWrite() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 61);
        MemoryRegion dst = tb.buffer(64);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, dst.address(), BAD_KEY).status());
        Data.assertFilled("the target of a refused WRITE", dst.segment(), 0, 64, (byte) 0);
    }

    @ParameterizedTest(name = "rkey 0x{0}")
    @ValueSource(strings = {"00010001", "00010100", "ffffff01", "7fffffff", "index 2^8 .. 2^23"})
    @DisplayName("required_ an RDMA WRITE through an rkey that names no region or window, whatever its bits, completes with REM_ACCESS_ERR and writes nothing [ibv_poll_cq(3) IBV_WC_REM_ACCESS_ERR, ibv_reg_mr(3) rkey]")
    void required_unknownRkeysRefused(String hex) {
        if (hex.startsWith("index")) {
            // Every power-of-two key index: one of them equals the length of a power-of-two key table.
            for (int bit = 8; bit < 24; bit++) {
                required_unknownRkeysRefused(Integer.toHexString((1 << bit) << 8 | 1));
            }
            return;
        }
        int rkey = Integer.parseUnsignedInt(hex, 16);
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 62);
        MemoryRegion dst = p.remoteBuffer(64);
        assumeTrue(rkey != dst.rkey() && rkey != src.rkey(), "the rkey under test happens to be a live region's");
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, src, 64, dst.address(), rkey).status(), "rkey 0x" + hex);
        Data.assertFilled("the target of a refused WRITE", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ an RDMA READ with a bad rkey completes with REM_ACCESS_ERR [ibv_poll_cq(3) IBV_WC_REM_ACCESS_ERR]")
    void required_badRkeyRead() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion dst = tb.buffer(64);
        MemoryRegion remote = p.remoteBuffer(64);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.read(1, dst, 64, remote.address(), BAD_KEY).status());
    }

    @Test
    @DisplayName("required_ an unsignaled WR that fails still completes, with its error status and wr_id: only successful completions are left out [ibv_post_send(3) IBV_SEND_SIGNALED, IBA 10.8: a WR that completes in error always generates a work completion; rxe do_complete]")
    void required_unsignaledFailureCompletes() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 63);
        MemoryRegion dst = tb.buffer(64);
        p.a().postSend(new SendWr().wrId(17).opcode(WrOpcode.RDMA_WRITE).sendFlags(0).sgList(Sge.of(src))
                .rdma(dst.address(), BAD_KEY));
        WorkCompletion wc = Completions.awaitOne(p.cqA(), "the unsignaled WRITE through a bad rkey");
        assertEquals(17, wc.wrId(), "the failed unsignaled WR's wr_id");
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), "an unsignaled WRITE through a bad rkey");
        Completions.assertNone(p.cqA(), "after the failed WR's one completion");
        Data.assertFilled("the target of the refused WRITE", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ an RDMA WRITE to a QP that does not allow remote write fails with a remote error [ibv_modify_qp(3) qp_access_flags, IBA 9.7.5.1; rxe: REM_INV_REQ_ERR]")
    void required_qpAccessFlagsEnforced() {
        Testbed far = tb.peer();
        QueuePair a = tb.qp(QpType.RC, tb.cq(16), null);
        CompletionQueue cqB = far.cq(16);
        QueuePair b = far.qp(QpType.RC, cqB, null);
        CompletionQueue cqA = a.initAttributes().sendCq();
        tb.bringUp(a, b.qpNum(), 7, far);
        b.modify(QpAttributes.toInit(far.port(), 0, 0));
        far.toRtr(b, a.qpNum(), tb);
        far.toRts(b, 7);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = far.buffer(64);
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src)).rdma(dst.address(), dst.rkey()));
        WorkCompletion wc = Completions.awaitOne(cqA, "the WRITE to a QP without REMOTE_WRITE");
        assertTrue(Set.of(WcStatus.REM_ACCESS_ERR, WcStatus.REM_INV_REQ_ERR).contains(wc.status()),
                "expected REM_ACCESS_ERR or REM_INV_REQ_ERR, got " + wc.status());
        Data.assertFilled("the target", dst.segment(), 0, 64, (byte) 0);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "ATOMIC_FETCH_AND_ADD", "RDMA_WRITE_WITH_IMM"})
    @DisplayName("required_ an RDMA READ, atomic or WRITE with immediate to a QP whose qp_access_flags lack the matching REMOTE_ bit fails with a remote error and moves no data [ibv_modify_qp(3) qp_access_flags, IBA 9.7.5.1; rxe: REM_INV_REQ_ERR]")
    void required_qpAccessFlagsEnforcedPerOpcode(WrOpcode op) {
        if (op == WrOpcode.ATOMIC_FETCH_AND_ADD) {
            assumeAtomics();
        }
        Testbed far = tb.peer();
        QueuePair a = tb.qp(QpType.RC, tb.cq(16), null);
        CompletionQueue cqB = far.cq(16);
        QueuePair b = far.qp(QpType.RC, cqB, null);
        CompletionQueue cqA = a.initAttributes().sendCq();
        tb.bringUp(a, b.qpNum(), 7, far);
        // Every remote access but the one this WR needs.
        int needed = switch (op) {
            case RDMA_READ -> AccessFlags.REMOTE_READ;
            case ATOMIC_FETCH_AND_ADD -> AccessFlags.REMOTE_ATOMIC;
            default -> AccessFlags.REMOTE_WRITE;
        };
        int others = (AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC) & ~needed;
        b.modify(QpAttributes.toInit(far.port(), 0, others));
        far.toRtr(b, a.qpNum(), tb);
        far.toRts(b, 7);
        MemoryRegion local = tb.buffer(64);
        MemoryRegion remote = far.buffer(64);
        MemoryRegion rbuf = far.buffer(64);
        Data.fill(local, 5);
        byte[] localBefore = local.segment().toArray(ValueLayout.JAVA_BYTE);
        b.postRecv(new RecvWr(9, Sge.of(rbuf)));
        SendWr wr = new SendWr().wrId(1).opcode(op).sendFlags(SendFlags.SIGNALED);
        switch (op) {
            case RDMA_READ -> wr.sgList(Sge.of(local, 0, 64)).rdma(remote.address(), remote.rkey());
            case ATOMIC_FETCH_AND_ADD -> wr.sgList(Sge.of(local, 0, 8)).atomic(remote.address(), 1, 0, remote.rkey());
            default -> wr.sgList(Sge.of(local, 0, 64)).rdma(remote.address(), remote.rkey()).immData(0x1234);
        }
        a.postSend(wr);
        WorkCompletion wc = Completions.awaitOne(cqA, op + " to a QP without " + AccessFlags.toString(needed));
        assertTrue(Set.of(WcStatus.REM_ACCESS_ERR, WcStatus.REM_INV_REQ_ERR).contains(wc.status()),
                op + ": expected REM_ACCESS_ERR or REM_INV_REQ_ERR, got " + wc.status());
        Data.assertFilled("the remote buffer", remote.segment(), 0, 64, (byte) 0);
        assertArrayEquals(localBefore, local.segment().toArray(ValueLayout.JAVA_BYTE),
                op + ": a refused READ or atomic must not write the local buffer");
    }

    @ParameterizedTest
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "ATOMIC_FETCH_AND_ADD", "ATOMIC_CMP_AND_SWP"})
    @DisplayName("required_ an RDMA READ or atomic to a QP whose max_dest_rd_atomic is 0 completes with REM_INV_REQ_ERR, moves no data and leaves the responder in ERR [ibv_modify_qp(3) max_dest_rd_atomic, IBA: an Invalid Request NAK; rxe check_resource]")
    void required_noResponderResourcesRefuseReadAndAtomic(WrOpcode op) {
        if (op != WrOpcode.RDMA_READ) {
            assumeAtomics();
        }
        Testbed far = tb.peer();
        QueuePair a = tb.qp(QpType.RC, tb.cq(16), null);
        QueuePair b = far.qp(QpType.RC, far.cq(16), null);
        CompletionQueue cqA = a.initAttributes().sendCq();
        tb.bringUp(a, b.qpNum(), 7, far);
        far.toInit(b);
        // The responder gets no resources for incoming RDMA READ and atomics.
        b.modify(QpAttributes.toRtr(far.avTo(tb), far.mtu(), a.qpNum(), Testbed.PSN, 0, Testbed.MIN_RNR_TIMER));
        far.toRts(b, 7);
        MemoryRegion local = tb.buffer(64);
        MemoryRegion remote = far.buffer(64);
        Data.fill(remote, 11);
        SendWr wr = new SendWr().wrId(4).opcode(op).sendFlags(SendFlags.SIGNALED);
        if (op == WrOpcode.RDMA_READ) {
            wr.sgList(Sge.of(local, 0, 64)).rdma(remote.address(), remote.rkey());
        } else {
            // For compare-and-swap: compare with the remote's current first word, so that an executed swap shows.
            wr.sgList(Sge.of(local, 0, 8)).atomic(remote.address(), Data.u64(remote.segment(), 0), 1, remote.rkey());
        }
        a.postSend(wr);
        WorkCompletion wc = Completions.awaitOne(cqA, op + " to a QP with max_dest_rd_atomic 0");
        assertEquals(WcStatus.REM_INV_REQ_ERR, wc.status(), op + " to a responder without READ/atomic resources");
        assertEquals(4, wc.wrId());
        Data.assertFilled("the local buffer of the refused " + op, local.segment(), 0, 64, (byte) 0);
        Data.assertPattern("the remote buffer of the refused " + op, remote.segment(), 0, 64, 11, 0);
        assertState(b, QpState.ERR, "the responder after an Invalid Request NAK");
    }

    @Test
    @DisplayName("required_ qp_access_flags govern only remote READ, WRITE and atomics: a SEND to a QP whose qp_access_flags are 0 is delivered [ibv_modify_qp(3) qp_access_flags]")
    void required_sendNeedsNoQpAccessFlags() {
        Testbed far = tb.peer();
        QueuePair a = tb.qp(QpType.RC, tb.cq(16), null);
        CompletionQueue cqB = far.cq(16);
        QueuePair b = far.qp(QpType.RC, cqB, null);
        tb.bringUp(a, b.qpNum(), 7, far);
        b.modify(QpAttributes.toInit(far.port(), 0, 0));
        far.toRtr(b, a.qpNum(), tb);
        far.toRts(b, 7);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 12);
        MemoryRegion dst = far.buffer(64);
        b.postRecv(new RecvWr(1, Sge.of(dst)));
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(src, 0, 48)));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(a.initAttributes().sendCq(), "the SEND").status());
        WorkCompletion r = Completions.awaitOne(cqB, "the receive of a QP without remote access flags");
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(48, r.byteLen());
        Data.assertPattern("the SEND's data", dst.segment(), 0, 48, 12, 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"a bad lkey", "a region without LOCAL_WRITE", "a region of another PD", "a range past its region's end",
        "a memory window's rkey as its lkey"})
    @DisplayName("required_ a SEND into a receive WR whose SGE has a bad lkey, lacks LOCAL_WRITE, belongs to another PD, runs past its region or names a memory window fails at both ends: the receive with LOC_PROT_ERR (rxe: LOC_QP_OP_ERR), the sender with REM_OP_ERR, and nothing is written [ibv_post_recv(3) sg_list, ibv_reg_mr(3), ibv_bind_mw(3): a window's rkey is for remote access, ibv_poll_cq(3) IBV_WC_LOC_PROT_ERR, IBV_WC_REM_OP_ERR]")
    void required_badReceiveSgeFails(String fault) {
        boolean window = fault.startsWith("a memory window");
        if (window) {
            assumeMw(MwType.TYPE_1);
        }
        QpPair p = tb.pair(QpType.RC);
        Testbed far = p.remote();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = switch (fault) {
            case "a region without LOCAL_WRITE" -> far.buffer(64, AccessFlags.REMOTE_READ);
            case "a region of another PD" -> far.context().allocPd().registerMemory(far.memory(64), Testbed.ALL_ACCESS, far.arena());
            default -> far.buffer(64, window ? Testbed.ALL_ACCESS | AccessFlags.MW_BIND : Testbed.ALL_ACCESS);
        };
        Sge sge = switch (fault) {
            case "a bad lkey" -> new Sge(dst.address(), 64, BAD_KEY);
            case "a range past its region's end" -> new Sge(dst.address() + 32, 64, dst.lkey());
            default -> Sge.of(dst);
        };
        if (window) {
            // A type 1 window over the whole receive buffer, bound through the receiver; its rkey stands as the lkey.
            MemoryWindow mw = far.pd().allocMw(MwType.TYPE_1);
            int rkey = p.b().bindMw(mw, 3, SendFlags.SIGNALED, new MwBindInfo(dst, dst.address(), 64,
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ));
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqB(), "the type 1 bind").status());
            sge = new Sge(dst.address(), 64, rkey);
        }
        p.b().postRecv(new RecvWr(1, sge));
        // 64 bytes: the whole SGE is written, so a range past the region's end is really used (rxe, like hardware,
        // checks the bytes it places, not the SGE as posted).
        WorkCompletion s = p.send(2, src, 0, 64);
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive whose SGE has " + fault);
        assertEquals(1, r.wrId());
        assertTrue(Set.of(WcStatus.LOC_PROT_ERR, WcStatus.LOC_QP_OP_ERR).contains(r.status()),
                "a receive SGE with " + fault + ": expected LOC_PROT_ERR (or rxe's LOC_QP_OP_ERR), got " + r.status());
        assertEquals(WcStatus.REM_OP_ERR, s.status(), "the sender whose message met a receive SGE with " + fault);
        Data.assertFilled("the receive buffer", dst.segment(), 0, 64, (byte) 0);
        assertState(p.b(), QpState.ERR, "the receiver after a local protection error");
    }

    private record ShortReceive(QpPair p, WorkCompletion sender, WorkCompletion receiver) {}

    private ShortReceive shortReceive(int extraReceives) {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = tb.buffer(4096);
        MemoryRegion rbuf = p.remoteBuffer(2048);
        p.recvB(1, rbuf, 0, 16);
        for (int i = 0; i < extraReceives; i++) {
            p.recvB(10 + i, rbuf, 1024, 1024);
        }
        WorkCompletion s = p.send(2, buf, 2048, 64);
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the too-short receive");
        return new ShortReceive(p, s, r);
    }

    @Test
    @DisplayName("required_ a message longer than the receive buffer gives LOC_LEN_ERR at the receiver [ibv_poll_cq(3) IBV_WC_LOC_LEN_ERR, IBA 9.9.3.1]")
    void required_shortReceiveLocLen() {
        ShortReceive x = shortReceive(0);
        assertEquals(WcStatus.LOC_LEN_ERR, x.receiver().status());
        assertEquals(1, x.receiver().wrId());
    }

    @Test
    @DisplayName("required_ a message longer than the receive buffer gives REM_INV_REQ_ERR at the sender [ibv_poll_cq(3) IBV_WC_REM_INV_REQ_ERR, IBA 9.7.5.2.4]")
    void required_shortReceiveRemInvReq() {
        ShortReceive x = shortReceive(0);
        assertEquals(WcStatus.REM_INV_REQ_ERR, x.sender().status());
        assertEquals(2, x.sender().wrId());
    }

    @Test
    @DisplayName("required_ after the short-receive error both QPs are in ERR [IBA 10.3.1.2: an error completion moves the QP to ERR]")
    void required_errorMovesToErr() {
        ShortReceive x = shortReceive(0);
        assertState(x.p().a(), QpState.ERR, "the sender after REM_INV_REQ_ERR");
        assertState(x.p().b(), QpState.ERR, "the receiver after LOC_LEN_ERR");
    }

    @Test
    @DisplayName("required_ the receiver's other outstanding receives flush with WR_FLUSH_ERR, in order [IBA 10.3.1.2, ibv_poll_cq(3) IBV_WC_WR_FLUSH_ERR]")
    void required_receivesFlushAfterError() {
        ShortReceive x = shortReceive(3);
        List<WorkCompletion> flushed = Completions.await(x.p().cqB(), 3, "the 3 outstanding receives");
        for (int i = 0; i < 3; i++) {
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.get(i).status(), "receive " + i);
            assertEquals(10 + i, flushed.get(i).wrId());
        }
    }

    @Test
    @DisplayName("required_ WRs posted behind a failing WR flush with WR_FLUSH_ERR, each once, in order [IBA 10.3.1.2]")
    void required_sendsFlushAfterError() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        List<SendWr> list = new ArrayList<>();
        list.add(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(buf.address(), 8, BAD_KEY)).rdma(dst.address() + 32, dst.rkey()));
        for (int i = 2; i <= 5; i++) {
            list.add(p.wr(i, WrOpcode.RDMA_WRITE, buf, 0, 8).rdma(dst.address() + 32, dst.rkey()));
        }
        p.a().postSend(list);
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 5, "the failing WR and the 4 behind it");
        assertEquals(1, wcs.get(0).wrId());
        assertEquals(WcStatus.LOC_PROT_ERR, wcs.get(0).status());
        for (int i = 1; i < 5; i++) {
            assertEquals(i + 1, wcs.get(i).wrId(), "flushed WR " + i);
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status(), "flushed WR " + i);
        }
        Completions.assertNone(p.cqA(), "every WR completes exactly once");
    }

    @Test
    @DisplayName("required_ a WR posted after an error completion flushes with WR_FLUSH_ERR [IBA 10.3.1.2]")
    void required_postAfterErrorFlushes() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        assertEquals(WcStatus.REM_ACCESS_ERR, p.write(1, buf, 8, dst.address(), BAD_KEY).status());
        assertState(p.a(), QpState.ERR, "the requester after REM_ACCESS_ERR");
        assertEquals(WcStatus.WR_FLUSH_ERR, p.write(2, buf, 8, dst.address() + 32, dst.rkey()).status());
    }

    @Test
    @DisplayName("required_ a send that completes in error moves its own QP to ERR and flushes the receives posted on that QP, each once with WR_FLUSH_ERR, in order [IBA 10.3.1.2: an error completion moves the QP to ERR, every outstanding WR is flushed; ibv_poll_cq(3) IBV_WC_WR_FLUSH_ERR]")
    void required_failedSendFlushesItsQpsReceives() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion rbuf = tb.buffer(3 * 64);
        MemoryRegion dst = p.remoteBuffer(64);
        for (int i = 0; i < 3; i++) {
            p.a().postRecv(new RecvWr().wrId(30 + i).sgList(Sge.of(rbuf, 64L * i, 64)));
        }
        p.a().postSend(new SendWr().wrId(7).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(Sge.of(src)).rdma(dst.address(), BAD_KEY));
        // The send queue's and the receive queue's completions share a's CQ; IBA orders each queue's own.
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 4, "the failed WRITE and a's 3 receives");
        List<WorkCompletion> sends = wcs.stream().filter(w -> w.wrId() == 7).toList();
        assertEquals(1, sends.size(), "one completion for the failed WRITE: " + wcs);
        assertEquals(WcStatus.REM_ACCESS_ERR, sends.getFirst().status());
        List<WorkCompletion> recvs = wcs.stream().filter(w -> w.wrId() != 7).toList();
        for (int i = 0; i < 3; i++) {
            assertEquals(30 + i, recvs.get(i).wrId(), "receive " + i + " flushed in order: " + recvs);
            assertEquals(WcStatus.WR_FLUSH_ERR, recvs.get(i).status(), "receive " + i);
        }
        assertState(p.a(), QpState.ERR, "the requester after REM_ACCESS_ERR");
        Completions.assertNone(p.cqA(), "every WR completes exactly once");
    }

    @Test
    @DisplayName("required_ moving a QP to RESET empties its receive queue without completions: brought up again, a SEND lands in a receive posted after the reset [ibv_modify_qp(3), IBA 10.3.1 Reset]")
    void required_resetEmptiesReceiveQueue() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = tb.buffer(128);
        Data.fill(buf, 29);
        MemoryRegion rbuf = p.remoteBuffer(128);
        p.recvB(1, rbuf, 0, 32);
        p.b().modify(QpAttributes.toState(QpState.RESET));
        p.reconnectB(7);
        p.recvB(2, rbuf, 64, 32);
        assertEquals(WcStatus.SUCCESS, p.send(3, buf, 96, 8).status(), "the SEND after the reset");
        WorkCompletion r = Completions.awaitOne(p.cqB(), "the receive posted after the reset");
        assertEquals(2, r.wrId(), "the receive posted before the reset was discarded with the queue");
        assertEquals(WcStatus.SUCCESS, r.status());
        Completions.assertNone(p.cqB(), "a receive discarded by RESET never completes");
    }

    @Test
    @DisplayName("required_ moving a QP to ERR flushes its posted receives with WR_FLUSH_ERR [ibv_modify_qp(3), IBA 10.3.1.2]")
    void required_modifyToErrFlushesReceives() {
        QpPair p = tb.pair(QpType.RC);
        MemoryRegion buf = p.remoteBuffer(64);
        for (int i = 0; i < 4; i++) {
            p.recvB(i, buf, 0, 64);
        }
        p.b().modify(QpAttributes.toState(QpState.ERR));
        List<WorkCompletion> wcs = Completions.await(p.cqB(), 4, "4 flushed receives");
        for (int i = 0; i < 4; i++) {
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status());
            assertEquals(i, wcs.get(i).wrId());
        }
    }

    @Test
    @DisplayName("required_ moving a QP to ERR flushes its outstanding sends with WR_FLUSH_ERR [ibv_modify_qp(3), IBA 10.3.1.2]")
    void required_modifyToErrFlushesSends() {
        QpPair p = tb.pair(QpType.RC, null, 7); // no receive at b: the SENDs wait on RNR
        MemoryRegion buf = tb.buffer(64);
        for (int i = 0; i < 3; i++) {
            p.a().postSend(p.wr(i, WrOpcode.SEND, buf, 0, 8));
        }
        Completions.assertNone(p.cqA(), "the SENDs are waiting for a receive");
        p.a().modify(QpAttributes.toState(QpState.ERR));
        List<WorkCompletion> wcs = Completions.await(p.cqA(), 3, "3 flushed sends");
        for (int i = 0; i < 3; i++) {
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status(), "send " + i);
            assertEquals(i, wcs.get(i).wrId());
        }
    }

    @Test
    @DisplayName("required_ a receive posted on a QP in ERR flushes with WR_FLUSH_ERR [IBA 10.3.1.2, ibv_post_recv(3)]")
    void required_recvInErrFlushes() {
        QpPair p = tb.pair(QpType.RC);
        p.b().modify(QpAttributes.toState(QpState.ERR));
        MemoryRegion buf = p.remoteBuffer(64);
        p.recvB(9, buf, 0, 64);
        WorkCompletion wc = Completions.awaitOne(p.cqB(), "the receive posted in ERR");
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
        assertEquals(9, wc.wrId());
    }

    @Test
    @DisplayName("required_ RNR_RETRY_EXC_ERR moves the requester to ERR [IBA 9.7.5.2.8]")
    void required_rnrMovesToErr() {
        QpPair p = tb.pair(QpType.RC, null, 0);
        MemoryRegion buf = tb.buffer(64);
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, p.send(1, buf, 0, 8).status());
        assertState(p.a(), QpState.ERR, "the requester after RNR_RETRY_EXC_ERR");
    }

    @Test
    @DisplayName("required_ a full receive queue refuses the next receive with ENOMEM and bad_wr, after max_recv_wr were accepted [ibv_post_recv(3) RETURN VALUE]")
    void required_fullReceiveQueue() {
        QueuePair qp = tb.qp(QpType.RC, tb.cq(8), b -> b.maxRecvWr(8));
        tb.toInit(qp);
        int granted = qp.initAttributes().cap().maxRecvWr();
        MemoryRegion buf = tb.buffer(64);
        int posted = 0;
        try {
            for (; posted <= granted; posted++) {
                qp.postRecv(new RecvWr(posted, Sge.of(buf)));
            }
            fail("the receive queue granted " + granted + " entries took " + posted);
        } catch (PostRecvException e) {
            assertEquals(Errno.ENOMEM, e.errno(), "a full receive queue: " + e);
            assertEquals(0, e.badWrIndex());
            assertTrue(posted >= 8, "only " + posted + " receives fit in a queue of max_recv_wr 8");
        }
    }

    @ParameterizedTest(name = "max_recv_wr {0}")
    @ValueSource(ints = {8, PostSendRules.DEEP_QUEUE})
    @DisplayName("required_ postRecv lists against the receive queue's room: a list of max_recv_wr - 1 receives and then one more are accepted and the next fails with ENOMEM at bad_wr 0; on a queue holding 3 receives, a list of 2 x max_recv_wr + 1 fails with ENOMEM at the first receive that does not fit (bad_wr max_recv_wr - 3), those before it posted, so that the queue is then full; with a queue deeper than 256 the lists run past their 256th receive [ibv_post_recv(3) bad_wr, ENOMEM]")
    void required_recvListsAgainstTheQueuesRoom(int maxRecvWr) {
        assumeQueueDepth(maxRecvWr);
        MemoryRegion buf = tb.buffer(64);
        QueuePair exact = tb.qp(QpType.RC, tb.cq(8), b -> b.maxRecvWr(maxRecvWr));
        tb.toInit(exact);
        int granted = exact.initAttributes().cap().maxRecvWr();
        List<RecvWr> list = new ArrayList<>();
        for (int i = 0; i < granted - 1; i++) {
            list.add(new RecvWr(i, Sge.of(buf, 0, 64)));
        }
        exact.postRecv(list);
        exact.postRecv(new RecvWr(granted - 1, Sge.of(buf, 0, 64)));
        PostRecvException full = assertFullQueue(exact, granted, buf);
        assertEquals(0, full.badWrIndex(), "bad_wr of a one-WR list on a full queue");

        QueuePair room = tb.qp(QpType.RC, tb.cq(8), b -> b.maxRecvWr(maxRecvWr));
        tb.toInit(room);
        int before = 3;
        for (int i = 0; i < before; i++) {
            room.postRecv(new RecvWr(1000 + i, Sge.of(buf, 0, 64)));
        }
        int n = 2 * granted + 1;
        List<RecvWr> longList = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            longList.add(new RecvWr(i, Sge.of(buf, 0, 64)));
        }
        VerbsException e = Expect.errno(n + " receives behind " + before + " on a receive queue of max_recv_wr "
                + granted, () -> room.postRecv(longList), Errno.ENOMEM);
        assertTrue(e instanceof PostRecvException, "postRecv reports a PostRecvException with bad_wr: " + e);
        int bad = ((PostRecvException) e).badWrIndex();
        assertEquals(granted - before, bad, "bad_wr must be the first receive past the queue's " + granted
                + " slots, " + before + " of them taken");
        assertFullQueue(room, granted, buf);
    }

    private static PostRecvException assertFullQueue(QueuePair qp, int granted, MemoryRegion buf) {
        VerbsException e = Expect.errno("a receive on a queue holding its max_recv_wr " + granted,
                () -> qp.postRecv(new RecvWr(-1, Sge.of(buf, 0, 64))), Errno.ENOMEM);
        assertTrue(e instanceof PostRecvException, "postRecv reports a PostRecvException: " + e);
        return (PostRecvException) e;
    }

    @Test
    @DisplayName("required_ postRecv on a QP in RESET fails with EINVAL [ibv_post_recv(3), IBA 10.3.1: receives from INIT on]")
    void required_postRecvInReset() {
        QueuePair qp = tb.qp(QpType.RC, tb.cq(8), null);
        MemoryRegion buf = tb.buffer(64);
        VerbsException e = Expect.errno("postRecv in RESET", () -> qp.postRecv(new RecvWr(1, Sge.of(buf))), Errno.EINVAL);
        assertTrue(e instanceof PostRecvException, "postRecv fails with a PostRecvException");
    }

    @Test
    @DisplayName("required_ a receive posted in INIT is kept and used once the QP is connected [IBA 10.3.1: INIT accepts receives]")
    void required_postRecvInInit() {
        Testbed far = tb.peer();
        QueuePair b = far.qp(QpType.RC, far.cq(8), null);
        QueuePair a = tb.qp(QpType.RC, tb.cq(8), null);
        far.toInit(b);
        MemoryRegion rbuf = far.buffer(32);
        b.postRecv(new RecvWr(5, Sge.of(rbuf, 0, 32)));
        far.toRtr(b, a.qpNum(), tb);
        far.toRts(b, 7);
        tb.bringUp(a, b.qpNum(), 7, far);
        MemoryRegion buf = tb.buffer(64);
        a.postSend(new SendWr().wrId(6).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(Sge.of(buf, 32, 8)));
        assertEquals(5, Completions.awaitOne(b.initAttributes().recvCq(), "the receive posted in INIT").wrId());
    }

    @Test
    @DisplayName("required_ a receive list stops at the first bad WR (too many SGEs): EINVAL, its index, the earlier receives posted [ibv_post_recv(3)]")
    void required_recvListStopsAtBad() {
        QpPair p = tb.pair(QpType.RC);
        int max = p.b().initAttributes().cap().maxRecvSge();
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 12);
        MemoryRegion buf = p.remoteBuffer(1024); // the receives' memory, in b's PD (another device in a split kit)
        Sge[] tooMany = tooManySges(buf, max);
        List<RecvWr> list = List.of(new RecvWr(1, Sge.of(buf, 512, 64)), new RecvWr().wrId(2).sgList(tooMany),
                new RecvWr(3, Sge.of(buf, 768, 64)));
        VerbsException e = Expect.errno("a receive list with " + (max + 1) + " SGEs at index 1",
                () -> p.b().postRecv(list), Errno.EINVAL);
        assertTrue(e instanceof PostRecvException pe && pe.badWrIndex() == 1, "bad_wr must be index 1: " + e);
        assertEquals(WcStatus.SUCCESS, p.send(4, src, 0, 8).status(), "the SEND into the receive before bad_wr");
        WorkCompletion first = Completions.awaitOne(p.cqB(), "the receive before bad_wr");
        assertEquals(1, first.wrId(), "the receive before bad_wr");
        assertEquals(WcStatus.SUCCESS, first.status(), "the receive before bad_wr must complete with the SEND's data");
        assertEquals(8, first.byteLen(), "the receive's byte_len");
        Data.assertPattern("the receive's buffer at offset 512", buf.segment(), 512, 8, 12, 0);
        p.a().postSend(p.wr(5, WrOpcode.SEND, src, 0, 8));
        Completions.assertNone(p.cqB(), "the receive after bad_wr must not have been posted");
    }

    /** {@return {@code max} + 1 SGEs of 8 bytes each, at the start of {@code buf}: one more than a receive takes} */
    private static Sge[] tooManySges(MemoryRegion buf, int max) {
        Sge[] sges = new Sge[max + 1];
        for (int i = 0; i <= max; i++) {
            sges[i] = Sge.of(buf, 8L * i, 8);
        }
        return sges;
    }

    @Test
    @DisplayName("required_ a receive list whose first WR is bad (too many SGEs) posts nothing: EINVAL at bad_wr 0, and neither its receives nor those of an earlier list, consumed since, are posted [ibv_post_recv(3)]")
    void required_recvListBadFirstPostsNothing() {
        QpPair p = tb.pair(QpType.RC);
        int max = p.b().initAttributes().cap().maxRecvSge();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion buf = p.remoteBuffer(1024); // the receives' memory, in b's PD (another device in a split kit)
        // Two receives first, consumed by two SENDs: a provider's reused WR array then holds two valid receives.
        p.b().postRecv(List.of(new RecvWr(10, Sge.of(buf, 512, 64)), new RecvWr(11, Sge.of(buf, 640, 64))));
        for (int i = 0; i < 2; i++) {
            assertEquals(WcStatus.SUCCESS, p.send(20 + i, src, 0, 8).status(), "SEND " + i);
        }
        List<WorkCompletion> taken = Completions.await(p.cqB(), 2, "the two receives of the first list");
        assertEquals(List.of(10L, 11L), taken.stream().map(WorkCompletion::wrId).toList());
        Sge[] tooMany = tooManySges(buf, max);
        List<RecvWr> list = List.of(new RecvWr().wrId(2).sgList(tooMany), new RecvWr(3, Sge.of(buf, 768, 64)));
        VerbsException e = Expect.errno("a receive list with " + (max + 1) + " SGEs at index 0",
                () -> p.b().postRecv(list), Errno.EINVAL);
        assertTrue(e instanceof PostRecvException pe && pe.badWrIndex() == 0, "bad_wr must be index 0: " + e);
        p.a().postSend(p.wr(5, WrOpcode.SEND, src, 0, 8));
        Completions.assertNone(p.cqB(), "no receive may be posted by a list refused at its first WR");
    }
}
