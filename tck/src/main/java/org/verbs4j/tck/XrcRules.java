package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.PostRecvException;
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
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.XrcDomain;

/**
 * XRC, {@code ibv_open_xrcd(3)}, {@code ibv_create_srq_ex(3)} and {@code ibv_open_qp(3)}: a message reaches the SRQ
 * its sender names, with that SRQ's CQ and protection domain, and no other; the domain's sharing by file and its
 * lifetime; and the QPs that have no queue to post to. Skipped, but for the first rule, where
 * {@link org.verbs4j.Capabilities#xrc()} is false (rxe, which has no XRC).
 */
public abstract class XrcRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected XrcRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    private void assumeXrc() {
        assumeTrue(caps().xrc(), "capability: the device has no XRC (XRC_SEND and XRC_RECV QPs)");
    }

    private XrcDomain xrcd() {
        return tb.peer().context().openXrcd();
    }

    private static SendWr send(long wrId, MemoryRegion src, int length) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sgList(Sge.of(src, 0, length));
    }

    @Test
    @DisplayName("required_ a device without XRC answers ibv_open_xrcd with EOPNOTSUPP [ibv_open_xrcd(3)]")
    void required_noXrc() {
        assumeTrue(!caps().xrc(), "the device has XRC");
        Expect.errno("openXrcd() without XRC", () -> tb.context().openXrcd(), Errno.EOPNOTSUPP);
    }

    @Test
    @DisplayName("required_ a SEND reaches the XRC SRQ its WR names: that SRQ's receive WR and CQ, with the XRC_RECV QP's number, and no other SRQ of the domain [ibv_create_srq_ex(3), ibv_post_send(3) xrc.remote_srqn]")
    void required_sendReachesNamedSrq() {
        assumeXrc();
        XrcLink link = XrcLink.open(tb, xrcd(), 7);
        Testbed far = link.recvSide();
        CompletionQueue cqA = far.cq(16);
        CompletionQueue cqB = far.cq(16);
        SharedReceiveQueue a = link.srq(cqA);
        SharedReceiveQueue b = link.srq(cqB);
        assertTrue(a.srqNum() != b.srqNum(), "two XRC SRQs have two numbers: 0x" + Integer.toHexString(a.srqNum()));
        MemoryRegion inA = far.buffer(64);
        MemoryRegion inB = far.buffer(64);
        a.postRecv(new RecvWr(1, Sge.of(inA, 0, 64)));
        b.postRecv(new RecvWr(2, Sge.of(inB, 0, 64)));
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 7);

        WorkCompletion sent = link.post(send(10, src, 48), b.srqNum());
        assertEquals(WcStatus.SUCCESS, sent.status(), "the SEND to SRQ B: " + sent);
        WorkCompletion got = Completions.awaitOne(cqB, "the receive of SRQ B");
        assertEquals(WcStatus.SUCCESS, got.status(), "SRQ B's receive: " + got);
        assertEquals(2, got.wrId(), "the receive WR of SRQ B");
        assertEquals(WcOpcode.RECV, got.opcode(), "its opcode");
        assertEquals(48, got.byteLen(), "its length");
        assertEquals(link.recv().qpNum(), got.qpNum(), "the completion names the XRC_RECV QP");
        Data.assertPattern("SRQ B's buffer", inB.segment(), 0, 48, 7, 0);
        Completions.assertNone(cqA, "SRQ A was not named");

        Data.fill(src, 8);
        assertEquals(WcStatus.SUCCESS, link.post(send(11, src, 32), a.srqNum()).status(), "the SEND to SRQ A");
        WorkCompletion gotA = Completions.awaitOne(cqA, "the receive of SRQ A");
        assertEquals(1, gotA.wrId(), "the receive WR of SRQ A");
        Data.assertPattern("SRQ A's buffer", inA.segment(), 0, 32, 8, 0);
    }

    @Test
    @DisplayName("required_ SENDs naming an XRC SRQ, in a loop that completes each and posts its receive again, while another thread destroys the SRQ: the close waits for a receive being posted, a receive posted after it throws IllegalStateException, no SEND lands after that, and the loop ends in a SEND completed with REM_INV_REQ_ERR, never a crash (run in a child JVM) [ibv_destroy_srq(3), ibv_post_srq_recv(3), ibv_post_send(3) xrc.remote_srqn]")
    void required_sendsWhileSrqClosed() throws Exception {
        assumeXrc();
        ForkedScenario.assertHolds(kit(), "xrcSendsWhileSrqClosed", "XRC SENDs while another thread destroys their SRQ");
    }

    @Test
    @DisplayName("required_ a SEND that names an SRQ outside the receiving QP's XRC domain (a basic SRQ, or an XRC SRQ of another domain) completes with REM_INV_REQ_ERR [ibv_post_send(3) xrc.remote_srqn]")
    void required_foreignSrqRefused() {
        assumeXrc();
        XrcDomain other = xrcd();
        Testbed far = tb.peer();
        SharedReceiveQueue foreign = other.createSrq(far.pd(), far.cq(4), new SrqInitAttributes(4, 1, 0));
        SharedReceiveQueue basic = far.pd().createSrq(new SrqInitAttributes(4, 1, 0));
        MemoryRegion in = far.buffer(64);
        foreign.postRecv(new RecvWr(1, Sge.of(in, 0, 64)));
        basic.postRecv(new RecvWr(2, Sge.of(in, 0, 64)));
        MemoryRegion src = tb.buffer(64);
        for (SharedReceiveQueue s : new SharedReceiveQueue[] {foreign, basic}) {
            XrcLink link = XrcLink.open(tb, xrcd(), 7);
            WorkCompletion wc = link.post(send(3, src, 16), s.srqNum());
            assertEquals(WcStatus.REM_INV_REQ_ERR, wc.status(), "a SEND to SRQ 0x" + Integer.toHexString(s.srqNum())
                    + " of no domain of the receiving QP: " + wc);
        }
    }

    @Test
    @DisplayName("required_ RDMA WRITE and READ over XRC are checked against the named SRQ's PD: a region of that PD is reached, one of another PD fails with REM_ACCESS_ERR [ibv_create_srq_ex(3) pd]")
    void required_rdmaUsesSrqPd() {
        assumeXrc();
        assumeOp(QpType.XRC_SEND, WrOpcode.RDMA_WRITE);
        XrcLink link = XrcLink.open(tb, xrcd(), 7);
        Testbed far = link.recvSide();
        SharedReceiveQueue srq = link.srq(far.cq(4));
        MemoryRegion target = far.buffer(128, Testbed.ALL_ACCESS);
        MemoryRegion src = tb.buffer(128);
        Data.fill(src, 21);
        SendWr write = new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE).sgList(Sge.of(src, 0, 128))
                .rdma(target.address(), target.rkey());
        assertEquals(WcStatus.SUCCESS, link.post(write, srq.srqNum()).status(), "a WRITE into the SRQ's PD");
        Data.assertPattern("the WRITE's target", target.segment(), 0, 128, 21, 0);
        if (caps().supports(QpType.XRC_SEND, WrOpcode.RDMA_READ)) {
            MemoryRegion back = tb.buffer(128);
            SendWr read = new SendWr().wrId(5).opcode(WrOpcode.RDMA_READ).sgList(Sge.of(back, 0, 128))
                    .rdma(target.address(), target.rkey());
            assertEquals(WcStatus.SUCCESS, link.post(read, srq.srqNum()).status(), "a READ from the SRQ's PD");
            Data.assertPattern("the READ's buffer", back.segment(), 0, 128, 21, 0);
        }
        try (ProtectionDomain otherPd = far.context().allocPd()) {
            MemoryRegion elsewhere = otherPd.registerMemory(far.memory(128), Testbed.ALL_ACCESS, far.arena());
            SendWr bad = new SendWr().wrId(6).opcode(WrOpcode.RDMA_WRITE).sgList(Sge.of(src, 0, 128))
                    .rdma(elsewhere.address(), elsewhere.rkey());
            WorkCompletion wc = link.post(bad, srq.srqNum());
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), "a WRITE into a region of another PD: " + wc);
            elsewhere.close();
        }
    }

    @Test
    @DisplayName("required_ a SEND for an XRC SRQ with no receive posted waits (RNR) and lands once one is posted [ibv_post_srq_recv(3)]")
    void required_rnrWaitsForSrq() {
        assumeXrc();
        XrcLink link = XrcLink.open(tb, xrcd(), 7);
        Testbed far = link.recvSide();
        CompletionQueue cq = far.cq(4);
        SharedReceiveQueue srq = link.srq(cq);
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, 5);
        link.send().postSend(send(7, src, 64).sendFlags(SendFlags.SIGNALED).remoteSrqn(srq.srqNum()));
        Completions.assertNone(link.sendCq(), "no receive is posted on the SRQ");
        MemoryRegion in = far.buffer(64);
        srq.postRecv(new RecvWr(8, Sge.of(in, 0, 64)));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(link.sendCq(), "the SEND after the receive").status(),
                "the SEND once a receive is posted");
        assertEquals(8, Completions.awaitOne(cq, "the SRQ's receive").wrId(), "the receive posted late");
        Data.assertPattern("the late receive's buffer", in.segment(), 0, 64, 5, 0);
    }

    /** An XRC link whose sender has SEND sessions, one SRQ with receive 9 of 64 bytes posted, and a source. */
    private record SessionLink(XrcLink link, CompletionQueue cq, SharedReceiveQueue srq, MemoryRegion in,
                               MemoryRegion src) {}

    /** A {@link SessionLink}, skipped without XRC or WR sessions; its source holds the pattern of {@code seed}. */
    private SessionLink sessionLink(int seed) {
        assumeXrc();
        assumeTrue(caps().wrSession(), "capability: WR sessions");
        XrcLink link = XrcLink.open(tb, xrcd(), 7, WrOpcode.SEND);
        Testbed far = link.recvSide();
        CompletionQueue cq = far.cq(4);
        SharedReceiveQueue srq = link.srq(cq);
        MemoryRegion in = far.buffer(64);
        srq.postRecv(new RecvWr(9, Sge.of(in, 0, 64)));
        MemoryRegion src = tb.buffer(64);
        Data.fill(src, seed);
        return new SessionLink(link, cq, srq, in, src);
    }

    @Test
    @DisplayName("required_ the WR session's setXrcSrqn names the SRQ of each WR [ibv_wr_post(3) ibv_wr_set_xrc_srqn]")
    void required_sessionSetsSrqn() {
        SessionLink x = sessionLink(12);
        XrcLink link = x.link();
        CompletionQueue cq = x.cq();
        SharedReceiveQueue srq = x.srq();
        MemoryRegion in = x.in();
        MemoryRegion src = x.src();
        var s = link.send().startWr();
        s.wrId(20);
        s.wrFlags(SendFlags.SIGNALED);
        s.send();
        s.setXrcSrqn(srq.srqNum());
        s.setSge(src.lkey(), src.address(), 40);
        s.complete();
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(link.sendCq(), "the session's SEND").status());
        WorkCompletion got = Completions.awaitOne(cq, "the SRQ's receive");
        assertEquals(40, got.byteLen(), "the session's SEND reached the SRQ it named");
        Data.assertPattern("the SRQ's buffer", in.segment(), 0, 40, 12, 0);
    }

    @Test
    @DisplayName("required_ in a WR session of an XRC_SEND QP, a SEND without setXrcSrqn, or with setXrcSrqn called before any builder (and again after it), makes complete() fail with EINVAL and nothing executes; setXrcSrqn from a thread that does not own the session throws IllegalStateException; the owner's SEND with it then lands [ibv_wr_post(3) ibv_wr_set_xrc_srqn, CONCURRENCY]")
    void required_sessionNeedsSrqn() throws Exception {
        SessionLink x = sessionLink(14);
        XrcLink link = x.link();
        CompletionQueue cq = x.cq();
        SharedReceiveQueue srq = x.srq();
        MemoryRegion in = x.in();
        MemoryRegion src = x.src();

        WrSession none = link.send().startWr();
        none.wrId(21);
        none.wrFlags(SendFlags.SIGNALED);
        none.send();
        none.setSge(src.lkey(), src.address(), 32);
        Expect.errno("a session SEND on an XRC_SEND QP without setXrcSrqn", none::complete, Errno.EINVAL);
        assertFalse(none.isActive(), "a session is closed after a failed complete()");

        WrSession early = link.send().startWr();
        early.setXrcSrqn(srq.srqNum());
        early.wrId(22);
        early.wrFlags(SendFlags.SIGNALED);
        early.send();
        early.setXrcSrqn(srq.srqNum());
        early.setSge(src.lkey(), src.address(), 32);
        Expect.errno("setXrcSrqn before any builder", early::complete, Errno.EINVAL);
        Completions.assertNone(link.sendCq(), "the refused batches must not execute");
        Completions.assertNone(cq, "no SEND of a refused batch reaches the SRQ");

        WrSession s = link.send().startWr();
        s.wrId(23);
        s.wrFlags(SendFlags.SIGNALED);
        s.send();
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> s.setXrcSrqn(srq.srqNum()));
        ExecutionException e = assertThrows(ExecutionException.class, () -> other.get(60, TimeUnit.SECONDS),
                "setXrcSrqn from a thread that does not own the session");
        assertInstanceOf(IllegalStateException.class, e.getCause(), "setXrcSrqn from another thread");
        s.setXrcSrqn(srq.srqNum());
        s.setSge(src.lkey(), src.address(), 32);
        s.complete();
        WorkCompletion sent = Completions.awaitOne(link.sendCq(), "the owner's SEND");
        assertEquals(23, sent.wrId(), "the owner's SEND is the only one sent");
        assertEquals(WcStatus.SUCCESS, sent.status(), "the owner's SEND: " + sent);
        assertEquals(9, Completions.awaitOne(cq, "the SRQ's receive").wrId(), "the SRQ's receive");
        Data.assertPattern("the SRQ's buffer", in.segment(), 0, 32, 14, 0);
    }

    @Test
    @DisplayName("required_ ibv_open_qp gives another handle on an XRC_RECV QP of the domain: same number and state, modified through either, alive until the last handle closes; an unknown number fails with EINVAL [ibv_open_qp(3)]")
    void required_openQp() {
        assumeXrc();
        XrcDomain xrcd = xrcd();
        QueuePair created = xrcd.createRecvQp();
        assertEquals(QpType.XRC_RECV, created.type(), "its type");
        assertNull(created.pd(), "an XRC_RECV QP has no PD");
        QueuePair opened = xrcd.openQp(created.qpNum());
        assertEquals(created.qpNum(), opened.qpNum(), "the opened handle's QPN");
        tb.peer().toInit(opened);
        assertEquals(QpState.INIT, created.state(), "a modify through the opened handle is the QP's");
        assertEquals(QpState.INIT, created.query().state(), "query() through the creator's handle");
        created.close();
        assertEquals(QpState.INIT, opened.query().state(), "the QP lives on with one handle left");
        QueuePair again = xrcd.openQp(opened.qpNum());
        opened.close();
        again.modify(QpAttributes.toState(QpState.RESET));
        assertEquals(QpState.RESET, again.state(), "the last handle still modifies it");
        int qpn = again.qpNum();
        again.close();
        Expect.errno("openQp of a QP whose last handle closed", () -> xrcd.openQp(qpn), Errno.EINVAL);
        QueuePair plain = tb.qp(QpType.RC, tb.cq(4), null);
        Expect.errno("openQp of an RC QP's number", () -> xrcd.openQp(plain.qpNum()), Errno.EINVAL);
        Expect.errno("openQp(2^24 - 1), the largest QPN, of no QP", () -> xrcd.openQp(0xff_ffff), Errno.EINVAL);
        Expect.badInput("openQp(2^24)", () -> xrcd.openQp(1 << 24));
        Expect.badInput("openQp(-1)", () -> xrcd.openQp(-1));
    }

    @Test
    @DisplayName("required_ ibv_open_xrcd with a file: every open of the same file is one domain, O_EXCL refuses it with EINVAL, no O_CREAT on a new file is EINVAL, fd -1 needs O_CREAT, a closed fd is EBADF [ibv_open_xrcd(3)]")
    void required_domainByFile() {
        assumeXrc();
        var ctx = tb.peer().context();
        Expect.errno("openXrcd(-1, 0)", () -> ctx.openXrcd(-1, 0), Errno.EINVAL);
        Expect.badInput("openXrcd(-1, O_APPEND)", () -> ctx.openXrcd(-1, XrcDomain.O_CREAT | 02000));
        Expect.badInput("openXrcd(-2, O_CREAT)", () -> ctx.openXrcd(-2, XrcDomain.O_CREAT));
        int fd;
        try (DmabufFile file = DmabufFile.create(4096)) {
            fd = file.fd();
            Expect.errno("openXrcd(file without a domain, 0)", () -> ctx.openXrcd(file.fd(), 0), Errno.EINVAL);
            XrcDomain first = ctx.openXrcd(file.fd(), XrcDomain.O_CREAT | XrcDomain.O_EXCL);
            Expect.errno("openXrcd(same file, O_CREAT | O_EXCL)",
                    () -> ctx.openXrcd(file.fd(), XrcDomain.O_CREAT | XrcDomain.O_EXCL), Errno.EINVAL);
            XrcDomain second = ctx.openXrcd(file.fd(), 0);
            QueuePair qp = first.createRecvQp();
            QueuePair shared = second.openQp(qp.qpNum());
            assertEquals(qp.qpNum(), shared.qpNum(), "the second open of the file finds the first one's QP");
            Expect.errno("openQp of that QP from a domain of no file", () -> xrcd().openQp(qp.qpNum()), Errno.EINVAL);
            shared.close();
            qp.close();
            second.close();
            first.close();
        }
        Expect.errno("openXrcd(a closed fd, O_CREAT)", () -> ctx.openXrcd(fd, XrcDomain.O_CREAT), Errno.EBADF);
    }

    @Test
    @DisplayName("required_ ibv_close_xrcd fails with EBUSY while an XRC SRQ or XRC_RECV QP of the domain is open, and succeeds after [ibv_open_xrcd(3) NOTES]")
    void required_closeBusy() {
        assumeXrc();
        XrcDomain xrcd = xrcd();
        SharedReceiveQueue srq = xrcd.createSrq(tb.peer().pd(), tb.peer().cq(4), new SrqInitAttributes(4, 1, 0));
        Expect.errno("close() under an SRQ", xrcd::close, Errno.EBUSY);
        srq.close();
        QueuePair qp = xrcd.createRecvQp();
        Expect.errno("close() under an XRC_RECV QP", xrcd::close, Errno.EBUSY);
        qp.close();
        xrcd.close();
        assertTrue(xrcd.isClosed(), "the domain closed once nothing used it");
        Expect.closed("createRecvQp()", xrcd::createRecvQp);
    }

    @Test
    @DisplayName("required_ an XRC SRQ takes max_srq_wr and max_srq_sge exactly, and one more of either fails with EINVAL [ibv_create_srq_ex(3), ibv_query_device(3)]")
    void required_srqLimits() {
        assumeXrc();
        XrcDomain xrcd = xrcd();
        Testbed far = tb.peer();
        int maxWr = far.deviceAttributes().maxSrqWr();
        int maxSge = far.deviceAttributes().maxSrqSge();
        CompletionQueue cq = far.cq(4);
        xrcd.createSrq(far.pd(), cq, new SrqInitAttributes(maxWr, maxSge, 0)).close();
        Expect.errno("max_srq_wr + 1", () -> xrcd.createSrq(far.pd(), cq, new SrqInitAttributes(maxWr + 1, 1, 0)),
                Errno.EINVAL);
        Expect.errno("max_srq_sge + 1", () -> xrcd.createSrq(far.pd(), cq, new SrqInitAttributes(1, maxSge + 1, 0)),
                Errno.EINVAL);
    }

    @Test
    @DisplayName("required_ XRC QPs have no queue to post to: a receive on XRC_SEND or XRC_RECV and a send on XRC_RECV fail with EINVAL; a PD creates no XRC_RECV QP, and no QP takes an XRC SRQ as its receive queue (EINVAL) [ibv_post_recv(3), ibv_create_qp_ex(3)]")
    void required_noQueues() {
        assumeXrc();
        XrcLink link = XrcLink.open(tb, xrcd(), 7);
        MemoryRegion mr = tb.buffer(64);
        RecvWr recv = new RecvWr(1, Sge.of(mr, 0, 64));
        PostRecvException r = Expect.thrown("postRecv on XRC_SEND", PostRecvException.class,
                () -> link.send().postRecv(recv));
        assertEquals(Errno.EINVAL, r.errno(), "its errno");
        r = Expect.thrown("postRecv on XRC_RECV", PostRecvException.class, () -> link.recv().postRecv(recv));
        assertEquals(Errno.EINVAL, r.errno(), "its errno");
        PostSendException s = Expect.thrown("postSend on XRC_RECV", PostSendException.class,
                () -> link.recv().postSend(send(1, mr, 8)));
        assertEquals(Errno.EINVAL, s.errno(), "its errno");
        Expect.badInput("createQp(XRC_RECV) on a PD", () -> tb.pd().createQp(
                QpInitAttributes.builder(QpType.XRC_RECV).cq(tb.cq(4)).build()));
        assertEquals(0, link.send().initAttributes().cap().maxRecvWr(), "an XRC_SEND QP is granted no receive WR");
        SharedReceiveQueue xrcSrq = link.srq(link.recvSide().cq(4));
        Expect.errno("an RC QP on an XRC SRQ", () -> link.recvSide().qp(QpType.RC, link.recvSide().cq(4),
                b -> b.srq(xrcSrq)), Errno.EINVAL);
    }
}
