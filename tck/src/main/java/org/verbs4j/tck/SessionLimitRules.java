package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QueuePair;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WcStatus;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * The WR session at its limits, and the errno of each refusal (issue 26: rules written for the survivors of mutation
 * testing of the shared session, {@code AbstractWrSession}, with the TCK as the only killer; tck/reports/mutation.md).
 * The session's rules assert that {@code complete()} throws; these pin which errno, where a mutant swapped one
 * refusal for another, and the exact fits the area tests only from above.
 * <ul>
 *   <li>A batch that does not fit the send queue is a resource error, never a bad argument: {@code ibv_post_send(3)}
 *       names ENOMEM, and librxe's builders set ENOSPC ({@code check_qp_queue_full}), which {@code ibv_wr_complete}
 *       returns. Without the room check a builder past the room was dropped and the next setter failed the batch
 *       with EINVAL.</li>
 *   <li>A session on a QP that cannot post fails with EINVAL ({@code ibv_post_send(3)}: the QP is in a state that
 *       does not post), not with the ENOMEM of a queue with no room.</li>
 *   <li>{@code setSgeList} of exactly {@code max_send_sge} entries is accepted and gathers them all.</li>
 *   <li>A DATA setter before any builder has no WR to attach to: {@code complete()} fails with EINVAL.</li>
 * </ul>
 */
public abstract class SessionLimitRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected SessionLimitRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private QpPair pair(int maxSendWr, int rnrRetry) {
        assumeSession(QpType.RC, WrOpcode.SEND, WrOpcode.RDMA_WRITE);
        Consumer<QpInitAttributes.Builder> o = b -> b.sendOps(WrOpcode.SEND, WrOpcode.RDMA_WRITE).maxSendWr(maxSendWr)
                .maxRecvWr(8).maxSendSge(1).maxRecvSge(1);
        return tb.pair(QpType.RC, o, rnrRetry);
    }

    @Test
    @DisplayName("required_ a session batch of more WRs than an empty send queue holds fails at complete() with ENOMEM or ENOSPC (the queue is full), not EINVAL, and executes nothing [ibv_wr_post(3) ibv_wr_complete RETURN VALUE, ibv_post_send(3) ENOMEM]")
    void required_batchBeyondEmptyQueueIsAResourceError() {
        QpPair p = pair(8, 7);
        int granted = p.a().initAttributes().cap().maxSendWr();
        // Twice the queue and one more: beyond any rounding up of max_send_wr a device may make.
        int n = 2 * granted + 1;
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 31);
        WrSession s = p.a().startWr();
        s.wrFlags(SendFlags.SIGNALED);
        for (int i = 0; i < n; i++) {
            s.wrId(i);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSge(src.lkey(), src.address(), 64);
        }
        Expect.errno(n + " WRs in one batch on a send queue of max_send_wr " + granted, s::complete, Errno.ENOMEM,
                Errno.ENOSPC);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the batch that did not fit");
        Data.assertFilled("remote memory after the failed complete()", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ with max_send_wr WRs outstanding, a session batch of one more fails at complete() with ENOMEM or ENOSPC, not EINVAL, and executes nothing [ibv_create_qp(3) cap.max_send_wr, ibv_wr_post(3) ibv_wr_complete RETURN VALUE]")
    void required_batchBeyondOutstandingWrsIsAResourceError() {
        // No receive is ever posted at b and rnr_retry 7 retries forever: the first SEND waits on RNR NAKs and every
        // WR behind it stays outstanding.
        QpPair p = pair(8, 7);
        int n = p.a().initAttributes().cap().maxSendWr();
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = tb.buffer(64);
        for (int i = 0; i < n; i++) {
            p.a().postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND).sendFlags(0).sgList(Sge.of(src, 0, 8)));
        }
        WrSession s = p.a().startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(dst.rkey(), dst.address());
        s.setSge(src.lkey(), src.address(), 64);
        Expect.errno("one WR more than the " + n + " outstanding in a send queue of max_send_wr " + n, s::complete,
                Errno.ENOMEM, Errno.ENOSPC);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the batch that did not fit, and the waiting unsignaled SENDs");
        Data.assertFilled("the target of the WRITE that did not fit", dst.segment(), 0, 64, (byte) 0);
    }

    @Test
    @DisplayName("required_ a session on a QP in INIT fails at complete() with EINVAL (a QP in that state does not post), not ENOMEM, and the QP is unchanged [ibv_wr_post(3) RETURN VALUE, ibv_post_send(3) EINVAL, IBA 10.3.1]")
    void required_sessionInInitIsEinval() {
        assumeSession(QpType.RC, WrOpcode.RDMA_WRITE);
        QueuePair qp = tb.qp(QpType.RC, tb.cq(16), b -> b.sendOps(WrOpcode.RDMA_WRITE).maxSendWr(8).maxSendSge(1));
        tb.toInit(qp);
        MemoryRegion buf = tb.buffer(64);
        WrSession s = qp.startWr();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(buf.rkey(), buf.address());
        s.setSge(buf.lkey(), buf.address() + 32, 8);
        Expect.errno("complete() on a QP in INIT", s::complete, Errno.EINVAL);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        assertEquals(QpState.INIT, qp.state(), "a refused batch leaves the QP's state alone");
    }

    @Test
    @DisplayName("required_ setSgeList with exactly max_send_sge entries (the QP's granted cap, the whole list) is accepted and gathers every entry in order [ibv_wr_post(3) ibv_wr_set_sge_list, ibv_create_qp(3) cap.max_send_sge]")
    void required_sgeListOfExactlyMaxSendSge() {
        QpPair p = pair(8, 7);
        int n = p.a().initAttributes().cap().maxSendSge();
        MemoryRegion src = tb.buffer(8L * n);
        MemoryRegion dst = p.remoteBuffer(8L * n + 8);
        Data.fill(src, 33);
        // The entries in reverse order, so that a list cut short or gathered out of order shows in the bytes.
        Sge[] list = new Sge[n];
        for (int i = 0; i < n; i++) {
            list[i] = Sge.of(src, 8L * (n - 1 - i), 8);
        }
        p.session(s -> {
            s.wrId(1);
            s.wrFlags(SendFlags.SIGNALED);
            s.rdmaWrite(dst.rkey(), dst.address());
            s.setSgeList(list, n);
        });
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(p.cqA(), "the WRITE of " + n + " SGEs").status());
        for (int i = 0; i < n; i++) {
            Data.assertPattern("SGE #" + i + " of " + n, dst.segment(), 8L * i, 8, 33, 8L * (n - 1 - i));
        }
        Data.assertFilled("past the " + n + " SGEs", dst.segment(), 8L * n, 8, (byte) 0);
    }

    @Test
    @DisplayName("required_ a DATA setter called before any builder (in a session opened after one aborted between a builder and its DATA setter) makes complete() fail with EINVAL, and the WR built after it executes nothing [ibv_wr_post(3) DATA transfer setters: they set the data of the current WR]")
    void required_dataSetterBeforeAnyBuilderIsEinval() {
        QpPair p = pair(8, 7);
        MemoryRegion src = tb.buffer(64);
        MemoryRegion dst = p.remoteBuffer(64);
        Data.fill(src, 34);
        // First a session aborted after a builder and before its DATA setter: the session must not take the
        // setter of the next session's first call as that WR's data.
        WrSession aborted = p.a().startWr();
        aborted.wrId(0);
        aborted.rdmaWrite(dst.rkey(), dst.address());
        aborted.abort();
        WrSession s = p.a().startWr();
        s.setSge(src.lkey(), src.address(), 64);
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(dst.rkey(), dst.address());
        s.setSge(src.lkey(), src.address(), 64);
        Expect.errno("complete() after a setSge before any builder", s::complete, Errno.EINVAL);
        assertFalse(s.isActive(), "a session is closed after a failed complete()");
        Completions.assertNone(p.cqA(), "the discarded batch");
        Data.assertFilled("remote memory after the failed complete()", dst.segment(), 0, 64, (byte) 0);
    }
}
