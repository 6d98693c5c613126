package org.verbs4j.provider.nativecommon.internal;

import java.util.Objects;
import java.util.Set;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.Errno;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_parent_domain_init_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_init_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_init_attr_ex;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_open_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_srq_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_srq_init_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_srq_init_attr_ex;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.CallHold;
import org.verbs4j.spi.support.RegionTable;

/**
 * Creates the QPs and SRQs of a protection domain, for either native provider: the argument checks, the
 * capability checks {@code ibv_wr_post(3)} asks of creation, the parent domain that attaches a thread domain,
 * and the sizes the device granted; and the XRC_RECV QPs and XRC SRQs of an XRC domain, and the handles
 * {@code ibv_open_qp} opens.
 *
 * @see "ibv_create_qp_ex(3), ibv_create_srq(3), ibv_create_srq_ex(3), ibv_open_qp(3), ibv_alloc_parent_domain(3)"
 */
public final class NativeQueuePairs {
    private static final int IBV_QP_INIT_ATTR_PD = 1;
    private static final int IBV_QP_INIT_ATTR_XRCD = 1 << 1;
    private static final int IBV_QP_INIT_ATTR_MAX_TSO_HEADER = 1 << 3;
    private static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;

    private NativeQueuePairs() {}

    /**
     * {@code ProtectionDomain.createQp}: a QP in {@code pd}.
     *
     * @param <C> the provider's context
     * @param <P> the provider's protection domain
     * @param context the PD's context
     * @param pd the PD
     * @param pdHandle its {@code struct ibv_pd *}
     * @param regions its live regions, for inline data
     * @param a the requested attributes
     * @return the QP, with the granted sizes in its {@code initAttributes()}
     * @throws IllegalArgumentException for a CQ, SRQ or thread domain of another context or provider, a
     *     {@code sendOps} opcode not valid on the QP type, or an XRC_RECV QP (an XRC domain creates those)
     * @throws IllegalStateException if the PD is closed
     * @throws VerbsException {@code EOPNOTSUPP} for what the library or device cannot run, or the errno of
     *     the creation
     */
    public static <C extends AbstractVerbsObject & NativeContextSupport,
            P extends AbstractVerbsObject & ProtectionDomain> QueuePair createQp(C context, P pd, long pdHandle,
                                                                                  RegionTable regions,
                                                                                  QpInitAttributes a) {
        pd.checkOpen();
        Objects.requireNonNull(a, "attributes");
        Arguments.pdQpType(a.type());
        AbstractVerbsObject sendCq = context.siblingCq(a.sendCq(), "the send CQ");
        AbstractVerbsObject recvCq = context.siblingCq(a.recvCq(), "the receive CQ");
        NativeSharedReceiveQueue srq = a.srq() == null ? null
                : context.sibling(a.srq(), NativeSharedReceiveQueue.class, "the SRQ");
        NativeThreadDomain td = a.threadDomain() == null ? null
                : context.sibling(a.threadDomain(), NativeThreadDomain.class, "the thread domain");
        checkSendOps(context, a);
        // Held until the QP object has recorded its uses of them: no close on another thread destroys them first.
        try (CallHold hold = CallHold.on(pd).and(sendCq, "the send CQ").and(recvCq, "the receive CQ")
                .and(srq, "the SRQ").and(td, "the thread domain")) {
            return create(context, pd, pdHandle, regions, a, sendCq, recvCq, srq, td);
        }
    }

    /** {@link #createQp} once its arguments are checked and held. */
    private static <C extends AbstractVerbsObject & NativeContextSupport,
            P extends AbstractVerbsObject & ProtectionDomain> QueuePair create(C context, P pd, long pdHandle,
            RegionTable regions, QpInitAttributes a, AbstractVerbsObject sendCq, AbstractVerbsObject recvCq,
            NativeSharedReceiveQueue srq, NativeThreadDomain td) {
        IbverbsBinding b = context.binding();
        long parentDomain = td == null ? 0 : allocParentDomain(context, pdHandle, td.handle());
        long qp = 0;
        try (TempMemory temp = new TempMemory(b)) {
            long attr = temp.allocate(ibv_qp_init_attr_ex.SIZEOF);
            b.putLong(attr + ibv_qp_init_attr_ex.send_cq$off, context.cqHandle(sendCq));
            b.putLong(attr + ibv_qp_init_attr_ex.recv_cq$off, context.cqHandle(recvCq));
            b.putLong(attr + ibv_qp_init_attr_ex.srq$off, srq == null ? 0 : srq.handle());
            QpCapabilities cap = a.cap();
            long capAt = attr + ibv_qp_init_attr_ex.cap$off;
            // With an SRQ, or on XRC_SEND, the QP has no receive queue of its own: no receive WR is asked for.
            boolean receives = srq == null && a.type() != QpType.XRC_SEND;
            NativeQpAttrs.writeCap(b, capAt, receives ? cap
                    : new QpCapabilities(cap.maxSendWr(), 0, cap.maxSendSge(), 0, cap.maxInlineData()));
            b.putInt(attr + ibv_qp_init_attr_ex.qp_type$off, a.type().value());
            b.putInt(attr + ibv_qp_init_attr_ex.sq_sig_all$off, a.sqSigAll() ? 1 : 0);
            int compMask = IBV_QP_INIT_ATTR_PD;
            if (!a.sendOps().isEmpty()) {
                compMask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
                b.putLong(attr + ibv_qp_init_attr_ex.send_ops_flags$off, WrOpcode.sendOpsFlags(a.sendOps()));
            }
            if (a.maxTsoHeader() > 0) {
                compMask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
                b.putShort(attr + ibv_qp_init_attr_ex.max_tso_header$off, (short) a.maxTsoHeader());
            }
            b.putInt(attr + ibv_qp_init_attr_ex.comp_mask$off, compMask);
            long domain = parentDomain != 0 ? parentDomain : pdHandle;
            b.putLong(attr + ibv_qp_init_attr_ex.pd$off, domain);
            if (compMask == IBV_QP_INIT_ATTR_PD) {
                // What the header's ibv_create_qp_ex does for a plain request.
                qp = b.createQp(domain, attr);
            } else {
                long op = context.op("create_qp_ex");
                if (op == 0) {
                    throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                            "the device has no extended QP creation (sendOps)");
                }
                qp = b.libibverbsOps().create_qp_ex(op, context.contextHandle(), attr);
            }
            if (qp <= 0) {
                long failed = qp;
                qp = 0;
                throw NativeErrors.exception(failed, "ibv_create_qp_ex", a.type() + " QP, sendOps " + a.sendOps()
                        + ", " + cap);
            }
            QpCapabilities granted = grantedCap(b, temp, qp, NativeQpAttrs.readCap(b, capAt));
            long qpx = 0;
            if (!a.sendOps().isEmpty()) {
                qpx = b.qpToQpEx(qp);
                NativeErrors.check(qpx, "ibv_qp_to_qp_ex", null);
                String missing = NativeWrSession.missingBuilder(b, qpx, a.sendOps());
                if (missing == null) {
                    missing = NativeWrSession.missingAddressSetter(b, qpx, a.type());
                }
                if (missing != null) {
                    throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP, "the library gives no " + missing
                            + " for " + a.type() + " QPs");
                }
            }
            QpInitAttributes g = new QpInitAttributes(a.type(), a.sendCq(), a.recvCq(), a.srq(), granted,
                    a.sqSigAll(), a.sendOps(), a.threadDomain(), a.maxTsoHeader());
            NativeQueuePair q = new NativeQueuePair(context, pd, regions, qp, qpx, parentDomain, g, sendCq, recvCq,
                    srq, td, null);
            qp = 0;
            parentDomain = 0;
            return q;
        } finally {
            // Only when the QP object was not made: it owns both once it exists.
            if (qp != 0) {
                b.destroyQp(qp);
            }
            if (parentDomain != 0) {
                b.deallocPd(parentDomain);
            }
        }
    }

    /** The creation rules of {@code ibv_wr_post(3)}: every requested opcode valid, supported and executable. */
    private static void checkSendOps(NativeContextSupport context, QpInitAttributes a) {
        for (WrOpcode op : a.sendOps()) {
            if (!op.isValidFor(a.type())) {
                throw new IllegalArgumentException("sendOps: " + op + " is not valid on a " + a.type()
                        + " QP (ibv_wr_post(3)); it is valid on " + op.qpTypes());
            }
        }
        // Whether the library has ATOMIC_WRITE and FLUSH is its own answer: it refuses a send_ops_flags bit it
        // does not know (rdma-core 44 has no FLUSH), and gives a builder for each bit it grants (missingBuilder).
        // librxe creates such QPs whatever the kernel driver can execute; the driver says what it can in
        // device_cap_flags_ex, and ibv_wr_post(3) wants creation to fail for what cannot run.
        long caps = context.deviceCapFlagsEx();
        if (a.sendOps().contains(WrOpcode.ATOMIC_WRITE) && (caps & DeviceAttributesEx.DEVICE_ATOMIC_WRITE) == 0) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "the device does not execute ATOMIC_WRITE (no IB_UVERBS_DEVICE_ATOMIC_WRITE)");
        }
        if (a.sendOps().contains(WrOpcode.FLUSH) && (caps & DeviceAttributesEx.DEVICE_FLUSH) == 0) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "the device does not execute FLUSH (no IB_UVERBS_DEVICE_FLUSH_*)");
        }
    }

    private static long allocParentDomain(NativeContextSupport context, long pd, long td) {
        long op = context.op("alloc_parent_domain");
        if (op == 0) {
            throw new VerbsException("ibv_alloc_parent_domain", Errno.EOPNOTSUPP,
                    "the device cannot attach a thread domain to a QP");
        }
        IbverbsBinding b = context.binding();
        try (TempMemory temp = new TempMemory(b)) {
            long attr = temp.allocate(ibv_parent_domain_init_attr.SIZEOF);
            b.putLong(attr + ibv_parent_domain_init_attr.pd$off, pd);
            b.putLong(attr + ibv_parent_domain_init_attr.td$off, td);
            long parent = b.libibverbsOps().alloc_parent_domain(op, context.contextHandle(), attr);
            NativeErrors.check(parent, "ibv_alloc_parent_domain", null);
            return parent;
        }
    }

    /**
     * The queue sizes the device granted, from {@code ibv_query_qp}: the extended creation path does not
     * always write them back into the request (rxe grants 15 WRs for 8 and leaves 8 there).
     */
    private static QpCapabilities grantedCap(IbverbsBinding b, TempMemory temp, long qp, QpCapabilities fallback) {
        long attr = temp.allocate(ibv_qp_attr.SIZEOF);
        long init = temp.allocate(ibv_qp_init_attr.SIZEOF);
        if (b.queryQp(qp, attr, QpAttrMask.CAP, init) != 0) {
            return fallback;
        }
        return NativeQpAttrs.readCap(b, attr + ibv_qp_attr.cap$off);
    }

    /**
     * {@code ProtectionDomain.createSrq}: an SRQ in {@code pd}.
     *
     * @param <C> the provider's context
     * @param <P> the provider's protection domain
     * @param context the PD's context
     * @param pd the PD
     * @param pdHandle its {@code struct ibv_pd *}
     * @param attributes the requested sizes and limit
     * @return the SRQ, posting up to the granted sizes
     * @throws IllegalStateException if the PD is closed
     * @throws VerbsException with the errno of {@code ibv_create_srq}
     */
    public static <C extends AbstractVerbsObject & NativeContextSupport,
            P extends AbstractVerbsObject & ProtectionDomain> SharedReceiveQueue createSrq(
                    C context, P pd, long pdHandle, SrqInitAttributes attributes) {
        pd.checkOpen();
        Objects.requireNonNull(attributes, "attributes");
        IbverbsBinding b = context.binding();
        try (CallHold hold = CallHold.on(pd); TempMemory temp = new TempMemory(b)) {
            long init = temp.allocate(ibv_srq_init_attr.SIZEOF);
            b.putInt(init + ibv_srq_init_attr.attr$max_wr$off, attributes.maxWr());
            b.putInt(init + ibv_srq_init_attr.attr$max_sge$off, attributes.maxSge());
            b.putInt(init + ibv_srq_init_attr.attr$srq_limit$off, attributes.srqLimit());
            long srq = b.createSrq(pdHandle, init);
            NativeErrors.check(srq, "ibv_create_srq", attributes.toString());
            try {
                return new NativeSharedReceiveQueue(context, pd, srq, b.getInt(init + ibv_srq_init_attr.attr$max_wr$off),
                        b.getInt(init + ibv_srq_init_attr.attr$max_sge$off));
            } catch (RuntimeException e) {
                b.destroySrq(srq);
                throw e;
            }
        }
    }

    /** What an XRC_RECV QP is created with: no CQ, no SRQ, no queue, as the domain's QPs all are. */
    private static final QpInitAttributes RECV_QP = new QpInitAttributes(QpType.XRC_RECV, null, null, null,
            new QpCapabilities(0, 0, 0, 0, 0), false, Set.of(), null, 0);

    /**
     * {@code XrcDomain.createRecvQp}: {@code ibv_create_qp_ex} with {@code IBV_QPT_XRC_RECV} and the domain
     * ({@code comp_mask} {@code IBV_QP_INIT_ATTR_XRCD}), nothing else.
     *
     * @param <C> the provider's context
     * @param context the domain's context
     * @param xrcd the domain, open
     * @return the QP, in RESET
     * @throws IllegalStateException if the domain is closed
     * @throws VerbsException {@code EOPNOTSUPP} without {@code verbs_context.create_qp_ex}, or the errno of the
     *     creation
     */
    static <C extends AbstractVerbsObject & NativeContextSupport> QueuePair createRecvQp(C context,
            NativeXrcDomain xrcd) {
        long op = context.op("create_qp_ex");
        IbverbsBinding b = context.binding();
        requireOp(op, "ibv_create_qp_ex", "extended QP creation, which XRC_RECV QPs need");
        try (CallHold hold = CallHold.on(xrcd); TempMemory temp = new TempMemory(b)) {
            long attr = temp.allocate(ibv_qp_init_attr_ex.SIZEOF);
            b.putInt(attr + ibv_qp_init_attr_ex.qp_type$off, QpType.XRC_RECV.value());
            b.putInt(attr + ibv_qp_init_attr_ex.comp_mask$off, IBV_QP_INIT_ATTR_XRCD);
            b.putLong(attr + ibv_qp_init_attr_ex.xrcd$off, xrcd.handle());
            long qp = b.libibverbsOps().create_qp_ex(op, context.contextHandle(), attr);
            NativeErrors.check(qp, "ibv_create_qp_ex", "XRC_RECV QP");
            return recvQp(context, xrcd, qp);
        }
    }

    /**
     * {@code XrcDomain.openQp}: {@code ibv_open_qp} of an XRC_RECV QP of the domain by its number
     * ({@code comp_mask} NUM, XRCD and TYPE).
     *
     * @param <C> the provider's context
     * @param context the domain's context
     * @param xrcd the domain, open
     * @param qpNum the QP's number, 24 bits
     * @return the new handle
     * @throws IllegalStateException if the domain is closed
     * @throws VerbsException {@code EOPNOTSUPP} without {@code verbs_context.open_qp}, or the errno of the open
     */
    static <C extends AbstractVerbsObject & NativeContextSupport> QueuePair openQp(C context, NativeXrcDomain xrcd,
            int qpNum) {
        long op = context.op("open_qp");
        requireOp(op, "ibv_open_qp", "open_qp");
        IbverbsBinding b = context.binding();
        try (CallHold hold = CallHold.on(xrcd); TempMemory temp = new TempMemory(b)) {
            long attr = temp.allocate(ibv_qp_open_attr.SIZEOF);
            b.putInt(attr + ibv_qp_open_attr.comp_mask$off, ibv_qp_open_attr.IBV_QP_OPEN_ATTR_NUM
                    | ibv_qp_open_attr.IBV_QP_OPEN_ATTR_XRCD | ibv_qp_open_attr.IBV_QP_OPEN_ATTR_TYPE);
            b.putInt(attr + ibv_qp_open_attr.qp_num$off, qpNum);
            b.putLong(attr + ibv_qp_open_attr.xrcd$off, xrcd.handle());
            b.putInt(attr + ibv_qp_open_attr.qp_type$off, QpType.XRC_RECV.value());
            long qp = b.libibverbsOps().open_qp(op, context.contextHandle(), attr);
            NativeErrors.check(qp, "ibv_open_qp", "XRC_RECV QP 0x" + Integer.toHexString(qpNum));
            return recvQp(context, xrcd, qp);
        }
    }

    /** {@code EOPNOTSUPP}, as the inline verb answers, for an op the context does not have. */
    private static void requireOp(long op, String verb, String what) {
        if (op == 0) {
            throw new VerbsException(verb, Errno.EOPNOTSUPP, "the device has no " + what);
        }
    }

    /** The Java object of a new XRC_RECV QP or opened handle; the QP is destroyed if it cannot be made. */
    private static <C extends AbstractVerbsObject & NativeContextSupport> NativeQueuePair recvQp(C context,
            NativeXrcDomain xrcd, long qp) {
        try {
            return new NativeQueuePair(context, (NativeProtectionDomain) null, new RegionTable(), qp, 0, 0, RECV_QP,
                    null, null, null, null, xrcd);
        } catch (RuntimeException e) {
            context.binding().destroyQp(qp);
            throw e;
        }
    }

    /**
     * {@code XrcDomain.createSrq}: {@code ibv_create_srq_ex} with {@code IBV_SRQT_XRC} ({@code comp_mask} TYPE, PD,
     * XRCD and CQ).
     *
     * @param <C> the provider's context
     * @param context the domain's context
     * @param xrcd the domain, open
     * @param pd the SRQ's protection domain, of this context
     * @param cq its CQ, of this context
     * @param attributes its sizes and limit
     * @return the SRQ
     * @throws IllegalStateException if the domain is closed
     * @throws IllegalArgumentException if the PD or the CQ is closed meanwhile
     * @throws VerbsException {@code EOPNOTSUPP} without {@code verbs_context.create_srq_ex}, or the errno of the
     *     creation
     */
    static <C extends AbstractVerbsObject & NativeContextSupport> SharedReceiveQueue createXrcSrq(C context,
            NativeXrcDomain xrcd, NativeProtectionDomain pd, AbstractVerbsObject cq, SrqInitAttributes attributes) {
        long op = context.op("create_srq_ex");
        requireOp(op, "ibv_create_srq_ex", "create_srq_ex, which XRC SRQs need");
        IbverbsBinding b = context.binding();
        try (CallHold hold = CallHold.on(xrcd).and(pd, "the protection domain").and(cq, "the CQ");
             TempMemory temp = new TempMemory(b)) {
            long init = temp.allocate(ibv_srq_init_attr_ex.SIZEOF);
            long sizes = init + ibv_srq_init_attr_ex.attr$off;
            b.putInt(sizes + ibv_srq_attr.max_wr$off, attributes.maxWr());
            b.putInt(sizes + ibv_srq_attr.max_sge$off, attributes.maxSge());
            b.putInt(sizes + ibv_srq_attr.srq_limit$off, attributes.srqLimit());
            b.putInt(init + ibv_srq_init_attr_ex.comp_mask$off, ibv_srq_init_attr_ex.IBV_SRQ_INIT_ATTR_TYPE
                    | ibv_srq_init_attr_ex.IBV_SRQ_INIT_ATTR_PD | ibv_srq_init_attr_ex.IBV_SRQ_INIT_ATTR_XRCD
                    | ibv_srq_init_attr_ex.IBV_SRQ_INIT_ATTR_CQ);
            b.putInt(init + ibv_srq_init_attr_ex.srq_type$off, ibv_srq_init_attr_ex.IBV_SRQT_XRC);
            b.putLong(init + ibv_srq_init_attr_ex.pd$off, pd.handle());
            b.putLong(init + ibv_srq_init_attr_ex.xrcd$off, xrcd.handle());
            b.putLong(init + ibv_srq_init_attr_ex.cq$off, context.cqHandle(cq));
            long srq = b.libibverbsOps().create_srq_ex(op, context.contextHandle(), init);
            NativeErrors.check(srq, "ibv_create_srq_ex", "XRC SRQ, " + attributes);
            try {
                return new NativeSharedReceiveQueue(context, pd, srq,
                        b.getInt(sizes + ibv_srq_attr.max_wr$off), b.getInt(sizes + ibv_srq_attr.max_sge$off), xrcd,
                        cq);
            } catch (RuntimeException e) {
                b.destroySrq(srq);
                throw e;
            }
        }
    }
}
