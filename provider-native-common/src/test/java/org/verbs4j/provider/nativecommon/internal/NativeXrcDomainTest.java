package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Errno;
import org.verbs4j.PostRecvException;
import org.verbs4j.PostSendException;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.XrcDomain;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.Binding;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.FakeContext;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.FakeCq;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp;

/**
 * XRC over the recording binding of {@link NativeObjectModelTest}: {@link NativeXrcDomain} and what
 * {@link NativeQueuePairs} makes in it, field by field of {@code ibv_xrcd_init_attr}, {@code ibv_srq_init_attr_ex},
 * {@code ibv_qp_init_attr_ex} and {@code ibv_qp_open_attr}; the close order and its {@code EBUSY}; and the posts an
 * XRC QP refuses before any library call.
 */
class NativeXrcDomainTest {
    private static final long PD = 0x6000;
    private static final long XRCD = 0xb000;
    private static final long SRQ = 0xa000;
    private static final long QP = 0x9000;
    private static final long OPEN_XRCD = 0xe1;
    private static final long CLOSE_XRCD = 0xe2;
    private static final long CREATE_SRQ_EX = 0xe3;
    private static final long OPEN_QP = 0xe4;
    private static final long CREATE_QP_EX = 0x3000;
    private static final long POST_SEND = 0x10000 + ibv_context.ops$post_send$off;
    private static final long POST_RECV = 0x10000 + ibv_context.ops$post_recv$off;

    private final Binding binding = new Binding();

    {
        binding.recordMemory = false;
    }

    private final FakeContext context = new FakeContext(binding);
    private final FakeCq cq = new FakeCq(context, 0x7000);

    private NativeXrcDomain open() {
        binding.nextObject = XRCD;
        return NativeXrcDomain.open(context, -1, XrcDomain.O_CREAT);
    }

    private NativeProtectionDomain pd() {
        binding.createResult = PD;
        return NativeProtectionDomain.alloc(context);
    }

    private boolean posted() {
        return binding.calls.stream().anyMatch(c -> c.startsWith("postSend ") || c.startsWith("postRecv "));
    }

    @Test
    @DisplayName("ibv_open_xrcd gets comp_mask FD|OFLAGS, the fd and the oflags; the domain closes through close_xrcd and is then forgotten")
    void openAndClose() {
        binding.nextObject = XRCD;
        XrcDomain d = NativeXrcDomain.open(context, 7, XrcDomain.O_CREAT | XrcDomain.O_EXCL);
        assertEquals(List.of("openXrcd " + OPEN_XRCD + " " + NativeObjectModelTest.CONTEXT_HANDLE
                + " mask 3 fd 7 oflags 300"), binding.calls);
        assertEquals(NativeKind.XRCD, context.tracked.get(XRCD));
        assertSame(context, d.context());
        d.close();
        assertEquals("closeXrcd " + CLOSE_XRCD + " " + XRCD, binding.calls.getLast());
        assertNull(context.tracked.get(XRCD));
        int calls = binding.calls.size();
        assertThrows(IllegalStateException.class, d::context);
        assertThrows(IllegalStateException.class, d::createRecvQp);
        assertThrows(IllegalStateException.class, () -> d.openQp(1));
        assertThrows(IllegalStateException.class, () -> d.createSrq(pd(), cq, new SrqInitAttributes(4, 1, 0)));
        d.close();
        assertEquals(calls + 1, binding.calls.size(), "only the PD's allocation reaches the binding: " + binding.calls);
    }

    @Test
    @DisplayName("arguments Arguments.openXrcd refuses, a context without open_xrcd and a failed open reach no domain")
    void openRefused() {
        assertThrows(IllegalArgumentException.class, () -> NativeXrcDomain.open(context, -2, XrcDomain.O_CREAT));
        assertThrows(IllegalArgumentException.class, () -> NativeXrcDomain.open(context, -1, 01));
        assertTrue(binding.calls.isEmpty(), binding.calls.toString());
        context.openXrcd = 0;
        VerbsException none = assertThrows(VerbsException.class, this::open);
        assertEquals(Errno.EOPNOTSUPP, none.errno());
        assertEquals("ibv_open_xrcd", none.verb());
        assertTrue(binding.calls.isEmpty(), "no call through a NULL op");
        context.openXrcd = OPEN_XRCD;
        binding.failWith = Errno.EINVAL;
        VerbsException failed = assertThrows(VerbsException.class, this::open);
        assertEquals(Errno.EINVAL, failed.errno());
        assertTrue(context.tracked.isEmpty(), context.tracked.toString());
    }

    @Test
    @DisplayName("a domain without close_xrcd fails its close with EOPNOTSUPP and stays open")
    void closeWithoutOp() {
        context.closeXrcd = 0;
        NativeXrcDomain d = open();
        VerbsException e = assertThrows(VerbsException.class, d::close);
        assertEquals(Errno.EOPNOTSUPP, e.errno());
        assertFalse(d.isClosed());
    }

    @Test
    @DisplayName("an XRC SRQ: create_srq_ex with TYPE|PD|XRCD|CQ, IBV_SRQT_XRC and the three handles; its number from get_srq_num; domain, PD and CQ busy while it is open")
    void xrcSrq() {
        NativeXrcDomain d = open();
        NativeProtectionDomain p = pd();
        context.getSrqNum = 0xe5;
        binding.srqNum = 0x1234;
        binding.nextObject = SRQ;
        SharedReceiveQueue s = d.createSrq(p, cq, new SrqInitAttributes(8, 2, 0));
        assertTrue(binding.calls.contains("createSrqEx " + CREATE_SRQ_EX + " " + NativeObjectModelTest.CONTEXT_HANDLE
                + " mask 15 type 1 pd " + PD + " xrcd " + XRCD + " cq " + 0x7000 + " sge 2"), binding.calls.toString());
        assertEquals(0x1234, s.srqNum());
        assertSame(p, s.pd());
        assertEquals(NativeKind.SRQ, context.tracked.get(SRQ));
        for (Runnable close : List.<Runnable>of(d::close, p::close, cq::close)) {
            VerbsException busy = assertThrows(VerbsException.class, close::run);
            assertEquals(Errno.EBUSY, busy.errno());
        }
        assertFalse(binding.calls.contains("closeXrcd " + CLOSE_XRCD + " " + XRCD), "EBUSY before the verb");
        s.close();
        assertEquals("destroySrq " + SRQ, binding.calls.getLast());
        d.close();
        p.close();
        assertEquals("closeXrcd " + CLOSE_XRCD + " " + XRCD, binding.calls.get(binding.calls.size() - 2));
    }

    @Test
    @DisplayName("an XRC SRQ refuses a PD or CQ of another context, and a closed one, before create_srq_ex; without the op it is EOPNOTSUPP")
    void xrcSrqArguments() {
        NativeXrcDomain d = open();
        FakeContext other = new FakeContext(binding);
        binding.createResult = PD;
        NativeProtectionDomain foreignPd = NativeProtectionDomain.alloc(other);
        FakeCq foreignCq = new FakeCq(other, 0x7100);
        NativeProtectionDomain p = pd();
        SrqInitAttributes a = new SrqInitAttributes(4, 1, 0);
        assertThrows(IllegalArgumentException.class, () -> d.createSrq(foreignPd, cq, a));
        assertThrows(IllegalArgumentException.class, () -> d.createSrq(p, foreignCq, a));
        assertThrows(NullPointerException.class, () -> d.createSrq(p, cq, null));
        assertThrows(NullPointerException.class, () -> d.createSrq(null, cq, a));
        assertTrue(binding.calls.stream().noneMatch(c -> c.startsWith("createSrqEx")), binding.calls.toString());
        context.createSrqEx = 0;
        VerbsException e = assertThrows(VerbsException.class, () -> d.createSrq(p, cq, a));
        assertEquals(Errno.EOPNOTSUPP, e.errno());
        context.createSrqEx = CREATE_SRQ_EX;
        p.close();
        assertThrows(IllegalArgumentException.class, () -> d.createSrq(p, cq, a));
        assertTrue(binding.calls.stream().noneMatch(c -> c.startsWith("createSrqEx")), binding.calls.toString());
    }

    @Test
    @DisplayName("an XRC_RECV QP: create_qp_ex with IBV_QPT_XRC_RECV, comp_mask XRCD and the domain, no PD, CQ or queue; every post refused with EINVAL before the library")
    void recvQp() {
        NativeXrcDomain d = open();
        context.createQpEx = CREATE_QP_EX;
        binding.nextObject = QP;
        binding.memory.put(QP + ibv_qp.qp_num$off, 0x42);
        QueuePair q = d.createRecvQp();
        assertEquals(List.of("type 10 mask 2 pd 0 xrcd " + XRCD + " cqs 0/0 wrs 0/0"), binding.qpExAttrs);
        assertNull(q.pd());
        assertEquals(QpType.XRC_RECV, q.type());
        assertEquals(0x42, q.qpNum());
        assertNull(q.initAttributes().sendCq());
        PostSendException send = assertThrows(PostSendException.class, () -> q.postSend(new SendWr()));
        assertEquals(Errno.EINVAL, send.errno());
        assertEquals(0, send.badWrIndex());
        assertThrows(PostSendException.class, () -> q.postSend(List.of(new SendWr())));
        assertThrows(PostSendException.class, q::startWr);
        assertThrows(PostSendException.class, () -> q.prepareSends(1).post(1));
        PostRecvException recv = assertThrows(PostRecvException.class, () -> q.postRecv(new RecvWr()));
        assertEquals(Errno.EINVAL, recv.errno());
        assertThrows(PostRecvException.class, () -> q.postRecv(List.of(new RecvWr())));
        assertFalse(posted(), binding.calls.toString());
        VerbsException busy = assertThrows(VerbsException.class, d::close);
        assertEquals(Errno.EBUSY, busy.errno(), "the domain has a QP");
        q.close();
        assertEquals("destroyQp " + QP, binding.calls.getLast());
        d.close();
        assertTrue(d.isClosed());
    }

    @Test
    @DisplayName("without create_qp_ex an XRC_RECV QP is EOPNOTSUPP; a failed creation leaves the domain free to close")
    void recvQpRefused() {
        NativeXrcDomain d = open();
        VerbsException none = assertThrows(VerbsException.class, d::createRecvQp);
        assertEquals(Errno.EOPNOTSUPP, none.errno());
        context.createQpEx = CREATE_QP_EX;
        binding.failWith = Errno.ENOMEM;
        VerbsException failed = assertThrows(VerbsException.class, d::createRecvQp);
        assertEquals(Errno.ENOMEM, failed.errno());
        binding.failWith = 0;
        d.close();
        assertTrue(d.isClosed());
    }

    @Test
    @DisplayName("ibv_open_qp gets comp_mask NUM|XRCD|TYPE, the number, the domain and XRC_RECV; the state of the shared QP is queried; a number past 24 bits never reaches it")
    void openQp() {
        NativeXrcDomain d = open();
        assertThrows(IllegalArgumentException.class, () -> d.openQp(1 << 24));
        assertThrows(IllegalArgumentException.class, () -> d.openQp(-1));
        binding.nextObject = QP;
        binding.memory.put(QP + ibv_qp.qp_num$off, 0x42);
        binding.memory.put(QP + ibv_qp.state$off, QpState.RTR.value());
        QueuePair q = d.openQp(0x42);
        assertEquals(List.of("openXrcd " + OPEN_XRCD + " " + NativeObjectModelTest.CONTEXT_HANDLE
                        + " mask 3 fd -1 oflags 100",
                "openQp " + OPEN_QP + " " + NativeObjectModelTest.CONTEXT_HANDLE + " mask 11 num 66 xrcd " + XRCD
                        + " type 10"), binding.calls);
        assertEquals(QpType.XRC_RECV, q.type());
        assertEquals(QpState.RTR, q.state());
        assertEquals("queryQp " + QP + " 1", binding.calls.getLast(), "another handle may have modified it");
        assertNull(q.pd());
        assertThrows(PostSendException.class, () -> q.postSend(new SendWr()));
        VerbsException busy = assertThrows(VerbsException.class, d::close);
        assertEquals(Errno.EBUSY, busy.errno(), "an opened handle holds the domain too");
        q.close();
        assertEquals("destroyQp " + QP, binding.calls.getLast());
        binding.failWith = Errno.EINVAL;
        VerbsException none = assertThrows(VerbsException.class, () -> d.openQp(0x43));
        assertEquals("ibv_open_qp", none.verb());
        assertEquals(Errno.EINVAL, none.errno());
        binding.failWith = 0;
        d.close();
    }

    @Test
    @DisplayName("a PD refuses XRC_RECV with IllegalArgumentException; an XRC_SEND QP refuses receives with EINVAL before the library")
    void pdQpTypes() {
        NativeProtectionDomain p = pd();
        binding.calls.clear();
        assertThrows(IllegalArgumentException.class, () -> p.createQp(QpInitAttributes.builder(QpType.XRC_RECV)
                .cq(cq).build()));
        assertTrue(binding.calls.isEmpty(), binding.calls.toString());
        binding.nextObject = QP;
        binding.queryQpResult = -Errno.EINVAL;
        QueuePair q = p.createQp(QpInitAttributes.builder(QpType.XRC_SEND).cq(cq).maxSendWr(4).build());
        assertEquals(QpType.XRC_SEND, q.type());
        PostRecvException recv = assertThrows(PostRecvException.class, () -> q.postRecv(new RecvWr()));
        assertEquals(Errno.EINVAL, recv.errno());
        assertFalse(posted(), binding.calls.toString());
        q.close();
        p.close();
    }

    @Test
    @DisplayName("a closing context closes QPs, then SRQs, then the XRC domain, then the CQ and the PD")
    void contextCloseOrder() {
        NativeXrcDomain d = open();
        NativeProtectionDomain p = pd();
        context.createQpEx = CREATE_QP_EX;
        binding.nextObject = QP;
        d.createRecvQp();
        binding.nextObject = SRQ;
        d.createSrq(p, cq, new SrqInitAttributes(4, 1, 0));
        context.close();
        List<String> c = binding.calls;
        int qp = c.indexOf("destroyQp " + QP);
        int srq = c.indexOf("destroySrq " + SRQ);
        int xrcd = c.indexOf("closeXrcd " + CLOSE_XRCD + " " + XRCD);
        int pd = c.indexOf("deallocPd " + PD);
        assertTrue(qp >= 0 && qp < srq && srq < xrcd && xrcd < pd, c.toString());
        assertTrue(context.tracked.isEmpty(), context.tracked.toString());
    }

    @Test
    @DisplayName("a context never closed: its Cleaner closes an XRC domain left through verbs_context.close_xrcd, after the SRQs and before the PDs")
    void cleanerClosesDomain() {
        long ctx = 0x20000;
        binding.longs.put(ctx + ibv_context.abi_compat$off, -1L);
        long vctx = ctx - verbs_context.context$off;
        binding.longs.put(vctx + verbs_context.sz$off, verbs_context.SIZEOF);
        binding.longs.put(vctx + DeclaredOps.member("close_xrcd").offset(), CLOSE_XRCD);
        NativeContextResources r = new NativeContextResources(binding, ctx);
        r.add(NativeKind.PD, PD);
        r.add(NativeKind.XRCD, XRCD);
        r.add(NativeKind.SRQ, SRQ);
        r.run();
        assertEquals(List.of("destroySrq " + SRQ, "closeXrcd " + CLOSE_XRCD + " " + XRCD, "deallocPd " + PD,
                "closeDevice " + ctx), binding.calls);
    }

    @Test
    @DisplayName("post_send and post_recv are the ones the QP tests count: an XRC_SEND QP still sends")
    void xrcSendStillSends() {
        NativeProtectionDomain p = pd();
        binding.nextObject = QP;
        binding.queryQpResult = -Errno.EINVAL;
        NativeQueuePair q = (NativeQueuePair) p.createQp(QpInitAttributes.builder(QpType.XRC_SEND).cq(cq)
                .maxSendWr(4).build());
        binding.memory.put(QP + ibv_qp.state$off, QpState.RTS.value());
        q.postSend(new SendWr().opcode(WrOpcode.SEND).remoteSrqn(0x77));
        assertTrue(binding.calls.stream().anyMatch(c -> c.startsWith("postSend " + POST_SEND + " " + QP)),
                binding.calls.toString());
        assertFalse(binding.calls.stream().anyMatch(c -> c.startsWith("postRecv " + POST_RECV)));
        q.close();
        p.close();
    }
}
