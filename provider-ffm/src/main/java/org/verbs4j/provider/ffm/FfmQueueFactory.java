package org.verbs4j.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.verbs4j.Errno;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.ffm.internal.Fields;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs;
import org.verbs4j.provider.ffm.internal.Structs.ibv_parent_domain_init_attr;
import org.verbs4j.provider.ffm.internal.Structs.ibv_qp_init_attr_ex;
import org.verbs4j.provider.ffm.internal.Structs.ibv_srq_attr;
import org.verbs4j.provider.ffm.internal.Structs.ibv_srq_init_attr;
import org.verbs4j.provider.ffm.internal.Structs.verbs_context;
import org.verbs4j.provider.nativecommon.IbverbsDeviceFacts;
import org.verbs4j.provider.nativecommon.internal.ContextStructs;
import org.verbs4j.provider.nativecommon.internal.QpStructs;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionQueue;
import org.verbs4j.provider.nativecommon.internal.NativeProtectionDomain;
import org.verbs4j.provider.nativecommon.internal.NativeQueueFactory;
import org.verbs4j.provider.nativecommon.internal.NativeThreadDomain;

/**
 * Creates the QPs and SRQs of a {@link NativeProtectionDomain} of this provider (issue 12: their object model is
 * still the provider's).
 */
final class FfmQueueFactory implements NativeQueueFactory {
    private static final int IBV_QP_INIT_ATTR_PD = 1;
    private static final int IBV_QP_INIT_ATTR_MAX_TSO_HEADER = 1 << 3;
    private static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;

    private final FfmContext ctx;

    FfmQueueFactory(FfmContext ctx) {
        this.ctx = ctx;
    }

    private static NativeCompletionQueue cq(NativeProtectionDomain pd, Object cq, String what) {
        if (!(cq instanceof NativeCompletionQueue f) || !(f.nativeContext() instanceof FfmContext)) {
            throw new IllegalArgumentException(what + " is not from the ffm provider");
        }
        pd.sibling(f, AbstractVerbsObject.class, what);
        return f;
    }

    @Override
    public QueuePair createQp(NativeProtectionDomain pdObject, QpInitAttributes a) {
        MemorySegment pd = MemorySegment.ofAddress(pdObject.handle());
        NativeCompletionQueue sendCq = cq(pdObject, a.sendCq(), "the send CQ");
        NativeCompletionQueue recvCq = cq(pdObject, a.recvCq(), "the receive CQ");
        FfmSharedReceiveQueue srq = null;
        if (a.srq() != null) {
            if (!(a.srq() instanceof FfmSharedReceiveQueue s)) {
                throw new IllegalArgumentException("the SRQ is not from the ffm provider");
            }
            pdObject.sibling(s, AbstractVerbsObject.class, "the SRQ");
            srq = s;
        }
        NativeThreadDomain td = null;
        if (a.threadDomain() != null) {
            if (!(a.threadDomain() instanceof NativeThreadDomain t) || !(t.nativeContext() instanceof FfmContext)) {
                throw new IllegalArgumentException("the thread domain is not from the ffm provider");
            }
            pdObject.sibling(t, AbstractVerbsObject.class, "the thread domain");
            td = t;
        }
        for (WrOpcode op : a.sendOps()) {
            if (!op.isValidFor(a.type())) {
                throw new IllegalArgumentException("sendOps: " + op + " is not valid on a " + a.type()
                        + " QP; it is valid on " + op.qpTypes());
            }
        }
        if (a.type() == QpType.XRC_RECV) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "XRC_RECV QPs need an XRC domain, which this provider does not open");
        }
        if (a.sendOps().contains(WrOpcode.FLUSH) && ctx.rdmaCoreVersion < 45) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "FLUSH needs rdma-core 45 or later; the installed libibverbs is rdma-core "
                            + versionText(ctx.rdmaCoreVersion));
        }
        if (a.sendOps().contains(WrOpcode.ATOMIC_WRITE) && ctx.rdmaCoreVersion != 0 && ctx.rdmaCoreVersion < 44) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "ATOMIC_WRITE needs rdma-core 44 or later");
        }
        // librxe creates such QPs whatever the kernel driver can execute; the driver says what it can in
        // device_cap_flags_ex, and ibv_wr_post(3) wants creation to fail for what cannot run.
        if (a.sendOps().contains(WrOpcode.ATOMIC_WRITE)
                && (ctx.deviceCapFlagsEx & IbverbsDeviceFacts.DEVICE_ATOMIC_WRITE) == 0) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "the device does not execute ATOMIC_WRITE (no IB_UVERBS_DEVICE_ATOMIC_WRITE)");
        }
        if (a.sendOps().contains(WrOpcode.FLUSH) && (ctx.deviceCapFlagsEx & IbverbsDeviceFacts.DEVICE_FLUSH) == 0) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "the device does not execute FLUSH (no IB_UVERBS_DEVICE_FLUSH_*)");
        }
        MemorySegment parentDomain = MemorySegment.NULL;
        try (Arena arena = Arena.ofConfined()) {
            if (td != null) {
                MemorySegment op = ctx.verbsOp(ContextStructs.verbs_context.alloc_parent_domain$off);
                if (op.address() == 0) {
                    throw new VerbsException("ibv_alloc_parent_domain", Errno.EOPNOTSUPP,
                            "the device cannot attach a thread domain to a QP");
                }
                MemorySegment pdAttr = arena.allocate(ibv_parent_domain_init_attr.LAYOUT);
                ibv_parent_domain_init_attr.pd$vh.set(pdAttr, 0L, pd);
                ibv_parent_domain_init_attr.td$vh.set(pdAttr, 0L, MemorySegment.ofAddress(td.handle()));
                parentDomain = InlineOps.create(op, ctx.context, pdAttr);
                if (parentDomain.address() == 0) {
                    throw new VerbsException("ibv_alloc_parent_domain", Ibverbs.errnoOf(-1), null);
                }
            }
            var l = ibv_qp_init_attr_ex.LAYOUT;
            MemorySegment attr = arena.allocate(l);
            ibv_qp_init_attr_ex.send_cq$vh.set(attr, 0L, MemorySegment.ofAddress(sendCq.handle()));
            ibv_qp_init_attr_ex.recv_cq$vh.set(attr, 0L, MemorySegment.ofAddress(recvCq.handle()));
            ibv_qp_init_attr_ex.srq$vh.set(attr, 0L, srq == null ? MemorySegment.NULL : srq.srq);
            QpCapabilities cap = a.cap();
            Fields.i32(attr, l, "cap.max_send_wr", cap.maxSendWr());
            Fields.i32(attr, l, "cap.max_recv_wr", srq == null ? cap.maxRecvWr() : 0);
            Fields.i32(attr, l, "cap.max_send_sge", cap.maxSendSge());
            Fields.i32(attr, l, "cap.max_recv_sge", srq == null ? cap.maxRecvSge() : 0);
            Fields.i32(attr, l, "cap.max_inline_data", cap.maxInlineData());
            ibv_qp_init_attr_ex.qp_type$vh.set(attr, 0L, a.type().value());
            ibv_qp_init_attr_ex.sq_sig_all$vh.set(attr, 0L, a.sqSigAll() ? 1 : 0);
            int compMask = IBV_QP_INIT_ATTR_PD;
            if (!a.sendOps().isEmpty()) {
                compMask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
                ibv_qp_init_attr_ex.send_ops_flags$vh.set(attr, 0L, WrOpcode.sendOpsFlags(a.sendOps()));
            }
            if (a.maxTsoHeader() > 0) {
                compMask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
                ibv_qp_init_attr_ex.max_tso_header$vh.set(attr, 0L, (short) a.maxTsoHeader());
            }
            ibv_qp_init_attr_ex.comp_mask$vh.set(attr, 0L, compMask);
            ibv_qp_init_attr_ex.pd$vh.set(attr, 0L, td != null ? parentDomain : pd);
            MemorySegment qp;
            if (compMask == IBV_QP_INIT_ATTR_PD) {
                // What the header's ibv_create_qp_ex does for a plain request.
                qp = Ibverbs.ibv_create_qp(td != null ? parentDomain : pd, attr);
            } else {
                MemorySegment op = ctx.verbsOp(ContextStructs.verbs_context.create_qp_ex$off);
                if (op.address() == 0) {
                    throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                            "the device has no extended QP creation (sendOps)");
                }
                qp = InlineOps.create(op, ctx.context, attr);
            }
            if (qp.address() == 0) {
                throw new VerbsException("ibv_create_qp_ex", Ibverbs.errnoOf(-1),
                        a.type() + " QP, sendOps " + a.sendOps() + ", " + cap);
            }
            QpCapabilities requested = new QpCapabilities(Fields.i32(attr, l, "cap.max_send_wr"),
                    Fields.i32(attr, l, "cap.max_recv_wr"), Fields.i32(attr, l, "cap.max_send_sge"),
                    Fields.i32(attr, l, "cap.max_recv_sge"), Fields.i32(attr, l, "cap.max_inline_data"));
            QpCapabilities granted = grantedCap(arena, qp, requested);
            MemorySegment qpx = MemorySegment.NULL;
            if (!a.sendOps().isEmpty()) {
                qpx = Ibverbs.ibv_qp_to_qp_ex(qp);
                if (qpx.address() == 0) {
                    int errno = Ibverbs.errnoOf(-1);
                    Ibverbs.ibv_destroy_qp(qp);
                    throw new VerbsException("ibv_qp_to_qp_ex", errno, null);
                }
            }
            QpInitAttributes grantedAttrs = new QpInitAttributes(a.type(), a.sendCq(), a.recvCq(), a.srq(), granted,
                    a.sqSigAll(), a.sendOps(), a.threadDomain(), a.maxTsoHeader());
            FfmQueuePair q = new FfmQueuePair(pdObject, qp, qpx, grantedAttrs, sendCq, recvCq, srq, td, parentDomain);
            parentDomain = MemorySegment.NULL;
            ctx.qps.put(qp.address(), q);
            return q;
        } finally {
            if (parentDomain.address() != 0) {
                Ibverbs.ibv_dealloc_pd(parentDomain);
            }
        }
    }

    /**
     * The queue sizes the device granted, from {@code ibv_query_qp}: the extended creation path does not
     * always write them back into the request (rxe grants 15 WRs for 8 and leaves 8 there).
     */
    private static QpCapabilities grantedCap(Arena arena, MemorySegment qp, QpCapabilities fallback) {
        MemorySegment qa = arena.allocate(Structs.ibv_qp_attr.LAYOUT);
        MemorySegment qi = arena.allocate(256, 8);
        if (Ibverbs.ibv_query_qp(qp, qa, QpAttrMask.CAP, qi) != 0) {
            return fallback;
        }
        var l = Structs.ibv_qp_attr.LAYOUT;
        return new QpCapabilities(Fields.i32(qa, l, "cap.max_send_wr"), Fields.i32(qa, l, "cap.max_recv_wr"),
                Fields.i32(qa, l, "cap.max_send_sge"), Fields.i32(qa, l, "cap.max_recv_sge"),
                Fields.i32(qa, l, "cap.max_inline_data"));
    }

    static String versionText(int v) {
        return v == 0 ? "(version unknown)" : Integer.toString(v);
    }

    @Override
    public SharedReceiveQueue createSrq(NativeProtectionDomain pdObject, SrqInitAttributes attributes) {
        MemorySegment pd = MemorySegment.ofAddress(pdObject.handle());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment init = a.allocate(ibv_srq_init_attr.LAYOUT);
            MemorySegment attr = init.asSlice(QpStructs.ibv_srq_init_attr.attr$off, ibv_srq_attr.LAYOUT.byteSize());
            ibv_srq_attr.max_wr$vh.set(attr, 0L, attributes.maxWr());
            ibv_srq_attr.max_sge$vh.set(attr, 0L, attributes.maxSge());
            ibv_srq_attr.srq_limit$vh.set(attr, 0L, attributes.srqLimit());
            MemorySegment srq = Ibverbs.ibv_create_srq(pd, init);
            if (srq.address() == 0) {
                throw new VerbsException("ibv_create_srq", Ibverbs.errnoOf(-1), attributes.toString());
            }
            FfmSharedReceiveQueue s = new FfmSharedReceiveQueue(pdObject, srq, (int) ibv_srq_attr.max_wr$vh.get(attr, 0L),
                    (int) ibv_srq_attr.max_sge$vh.get(attr, 0L));
            ctx.srqs.put(srq.address(), s);
            return s;
        }
    }
}
