package org.verbs4j.provider.jnr;

import static org.verbs4j.provider.jnr.JnrProvider.errnoOf;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.verbs4j.AhAttributes;
import org.verbs4j.DataInOrder;
import org.verbs4j.Errno;
import org.verbs4j.MemoryWindow;
import org.verbs4j.Mtu;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PathMigState;
import org.verbs4j.PostRecvException;
import org.verbs4j.PostSendException;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendWr;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.provider.jnr.internal.JnrIbverbsBinding;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.AhAttrs;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionQueue;
import org.verbs4j.provider.nativecommon.internal.NativeProtectionDomain;
import org.verbs4j.provider.nativecommon.IbverbsDeviceFacts;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_parent_domain_init_attr;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw_bind;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_cap;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_init_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_init_attr_ex;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.AbstractWrSession;
import org.verbs4j.provider.nativecommon.internal.NativeKind;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryRegion;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryWindow;
import org.verbs4j.provider.nativecommon.internal.NativeThreadDomain;

/**
 * A queue pair, created with {@code ibv_create_qp_ex} (through {@code verbs_context.create_qp_ex}) and
 * seen as {@code struct ibv_qp_ex} through {@code ibv_qp_to_qp_ex}. Sends and receives go through
 * {@code ibv_context.ops.post_send} and {@code post_recv} on reused native WR arrays.
 *
 * @see "ibv_create_qp_ex(3)"
 */
final class JnrQueuePair extends AbstractVerbsObject implements QueuePair {
    final JnrContext context;
    final long handle;
    private static final int IBV_QP_INIT_ATTR_PD = 1;
    private static final int IBV_QP_INIT_ATTR_MAX_TSO_HEADER = 1 << 3;
    private static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;
    /** Every attribute {@code ibv_query_qp} can report. */
    private static final int QUERY_MASK = (1 << 21) - 1;
    /** {@code IBV_QP_CAP}. */
    private static final int IBV_QP_CAP = 1 << 19;

    private final NativeProtectionDomain pd;
    private final QpType type;
    private final int qpNum;
    private final QpInitAttributes initAttributes;
    private final NativeCompletionQueue sendCq;
    private final NativeCompletionQueue recvCq;
    private final JnrSharedReceiveQueue srq;
    private final NativeThreadDomain td;
    private final long parentDomain;
    private final long qpx;
    private final long postSend;
    private final long postRecv;
    private final SendWrArray sendWrs;
    private final RecvWrArray recvWrs;
    /** {@code struct ibv_mw_bind} for {@link #bindMw}. */
    private final long mwBind;
    private final JnrWrSession session;
    private final SendWr[] single = new SendWr[1];
    private final List<SendWr> singleList = java.util.Arrays.asList(single);

    private JnrQueuePair(NativeProtectionDomain pd, long qp, long qpx, long parentDomain, QpInitAttributes granted,
                         NativeCompletionQueue sendCq, NativeCompletionQueue recvCq, JnrSharedReceiveQueue srq,
                         NativeThreadDomain td) {
        super("QueuePair", ((JnrContext) pd.nativeContext()));
        this.context = ((JnrContext) pd.nativeContext());
        this.handle = qp;
        context.track(NativeKind.QP, qp, this);
        this.pd = pd;
        this.type = granted.type();
        this.qpNum = NativeMemory.getInt(qp + ibv_qp.qp_num$off);
        this.initAttributes = granted;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.td = td;
        this.parentDomain = parentDomain;
        this.qpx = qpx;
        this.postSend = ((JnrContext) pd.nativeContext()).op(ibv_context.ops$post_send$off);
        this.postRecv = ((JnrContext) pd.nativeContext()).op(ibv_context.ops$post_recv$off);
        this.sendWrs = new SendWrArray(((JnrContext) pd.nativeContext()), type);
        this.recvWrs = new RecvWrArray(((JnrContext) pd.nativeContext()).resources);
        this.mwBind = ((JnrContext) pd.nativeContext()).resources.allocate(ibv_mw_bind.SIZEOF);
        this.session = granted.sendOps().isEmpty() ? null
                : new JnrWrSession(this, qpx, granted.sendOps(), granted.cap(), ipCsum());
        dependOn(pd);
        dependOn(sendCq);
        dependOn(recvCq);
        if (srq != null) {
            dependOn(srq);
        }
        if (td != null) {
            dependOn(td);
        }
        register();
    }

    static JnrQueuePair create(NativeProtectionDomain pd, QpInitAttributes a) {
        JnrContext ctx = ((JnrContext) pd.nativeContext());
        NativeCompletionQueue sendCq = ctx.sibling(a.sendCq(), NativeCompletionQueue.class, "the send CQ");
        NativeCompletionQueue recvCq = ctx.sibling(a.recvCq(), NativeCompletionQueue.class, "the receive CQ");
        JnrSharedReceiveQueue srq = a.srq() == null ? null : ctx.sibling(a.srq(), JnrSharedReceiveQueue.class, "the SRQ");
        NativeThreadDomain td = a.threadDomain() == null ? null
                : ctx.sibling(a.threadDomain(), NativeThreadDomain.class, "the thread domain");
        for (WrOpcode op : a.sendOps()) {
            if (!op.isValidFor(a.type())) {
                throw new IllegalArgumentException("sendOps: " + op + " is not valid on " + a.type()
                        + " QPs (ibv_wr_post(3)); it is valid on " + op.qpTypes());
            }
        }
        if (a.sendOps().contains(WrOpcode.FLUSH)) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "ibv_wr_flush needs rdma-core 45 or later; this provider binds the rdma-core 44 ibv_qp_ex");
        }
        // librxe creates such QPs whatever the kernel driver can execute; the driver says what it can in
        // device_cap_flags_ex, and ibv_wr_post(3) wants creation to fail for what cannot run.
        if (a.sendOps().contains(WrOpcode.ATOMIC_WRITE) && (ctx.deviceCapFlagsEx & IbverbsDeviceFacts.DEVICE_ATOMIC_WRITE) == 0) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP,
                    "the device does not execute ATOMIC_WRITE (no IB_UVERBS_DEVICE_ATOMIC_WRITE in device_cap_flags_ex)");
        }
        if (a.type() == QpType.XRC_SEND || a.type() == QpType.XRC_RECV) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP, "XRC QPs need an XRC domain, which "
                    + "this provider does not offer");
        }
        long createQpEx = InlineVerbs.verbsContextOp(ctx.handle(), verbs_context.create_qp_ex$off);
        if (createQpEx == 0) {
            throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP, "the device has no create_qp_ex");
        }
        long parentDomain = td == null ? 0 : allocParentDomain(ctx, pd.handle(), td.handle());
        long attr = NativeMemory.allocate(ibv_qp_init_attr_ex.SIZEOF);
        try {
            NativeMemory.putAddress(attr + ibv_qp_init_attr_ex.send_cq$off, sendCq.handle());
            NativeMemory.putAddress(attr + ibv_qp_init_attr_ex.recv_cq$off, recvCq.handle());
            NativeMemory.putAddress(attr + ibv_qp_init_attr_ex.srq$off, srq == null ? 0 : srq.handle);
            long cap = attr + ibv_qp_init_attr_ex.cap$off;
            NativeMemory.putInt(cap + ibv_qp_cap.max_send_wr$off, a.cap().maxSendWr());
            NativeMemory.putInt(cap + ibv_qp_cap.max_recv_wr$off, srq == null ? a.cap().maxRecvWr() : 0);
            NativeMemory.putInt(cap + ibv_qp_cap.max_send_sge$off, a.cap().maxSendSge());
            NativeMemory.putInt(cap + ibv_qp_cap.max_recv_sge$off, srq == null ? a.cap().maxRecvSge() : 0);
            NativeMemory.putInt(cap + ibv_qp_cap.max_inline_data$off, a.cap().maxInlineData());
            NativeMemory.putInt(attr + ibv_qp_init_attr_ex.qp_type$off, a.type().value());
            NativeMemory.putInt(attr + ibv_qp_init_attr_ex.sq_sig_all$off, a.sqSigAll() ? 1 : 0);
            int compMask = IBV_QP_INIT_ATTR_PD;
            if (!a.sendOps().isEmpty()) {
                compMask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
                NativeMemory.putLong(attr + ibv_qp_init_attr_ex.send_ops_flags$off, WrOpcode.sendOpsFlags(a.sendOps()));
            }
            if (a.maxTsoHeader() > 0) {
                compMask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
                NativeMemory.putShort(attr + ibv_qp_init_attr_ex.max_tso_header$off, a.maxTsoHeader());
            }
            NativeMemory.putInt(attr + ibv_qp_init_attr_ex.comp_mask$off, compMask);
            NativeMemory.putAddress(attr + ibv_qp_init_attr_ex.pd$off, parentDomain != 0 ? parentDomain : pd.handle());
            long qp = InlineVerbs.createPP(createQpEx, ctx.handle, attr);
            if (qp == 0) {
                int e = InlineVerbs.lastErrno();
                throw new VerbsException("ibv_create_qp_ex", e != 0 ? e : Errno.EINVAL, a.type() + " QP, "
                        + a.cap() + (a.sendOps().isEmpty() ? "" : ", sendOps " + a.sendOps()));
            }
            long qpx = ctx.libs.ibverbs().ibv_qp_to_qp_ex(qp);
            String missing = a.sendOps().isEmpty() ? null : JnrWrSession.missingOps(qpx, a.sendOps());
            if (missing != null) {
                ctx.libs.ibverbs().ibv_destroy_qp(qp);
                throw new VerbsException("ibv_create_qp_ex", Errno.EOPNOTSUPP, "the device gives no " + missing
                        + " for " + a.type() + " QPs");
            }
            QpCapabilities granted = grantedCap(ctx, qp, cap);
            QpInitAttributes g = new QpInitAttributes(a.type(), sendCq, recvCq, srq, granted, a.sqSigAll(),
                    a.sendOps(), td, a.maxTsoHeader());
            return new JnrQueuePair(pd, qp, qpx, parentDomain, g, sendCq, recvCq, srq, td);
        } catch (RuntimeException e) {
            if (parentDomain != 0) {
                ctx.libs.ibverbs().ibv_dealloc_pd(parentDomain);
                ctx.resources.remove(NativeKind.PARENT_DOMAIN, parentDomain);
            }
            throw e;
        } finally {
            NativeMemory.free(attr);
        }
    }

    /**
     * The sizes the device granted, from {@code ibv_query_qp}: rxe grants more than asked on the extended
     * creation path but leaves the request's numbers in the init attributes. Falls back to those numbers if
     * the query fails.
     */
    private static QpCapabilities grantedCap(JnrContext ctx, long qp, long requestedCap) {
        long a = NativeMemory.allocate(ibv_qp_attr.SIZEOF);
        long init = NativeMemory.allocate(ibv_qp_init_attr.SIZEOF);
        try {
            long cap = ctx.libs.ibverbs().ibv_query_qp(qp, a, IBV_QP_CAP, init) == 0
                    ? init + ibv_qp_init_attr.cap$off : requestedCap;
            return new QpCapabilities(NativeMemory.getInt(cap + ibv_qp_cap.max_send_wr$off),
                    NativeMemory.getInt(cap + ibv_qp_cap.max_recv_wr$off),
                    NativeMemory.getInt(cap + ibv_qp_cap.max_send_sge$off),
                    NativeMemory.getInt(cap + ibv_qp_cap.max_recv_sge$off),
                    NativeMemory.getInt(cap + ibv_qp_cap.max_inline_data$off));
        } finally {
            NativeMemory.free(init);
            NativeMemory.free(a);
        }
    }

    private static long allocParentDomain(JnrContext ctx, long pd, long td) {
        long fn = InlineVerbs.verbsContextOp(ctx.handle(), verbs_context.alloc_parent_domain$off);
        if (fn == 0) {
            throw new VerbsException("ibv_alloc_parent_domain", Errno.EOPNOTSUPP, null);
        }
        long a = NativeMemory.allocate(ibv_parent_domain_init_attr.SIZEOF);
        try {
            NativeMemory.putAddress(a + ibv_parent_domain_init_attr.pd$off, pd);
            NativeMemory.putAddress(a + ibv_parent_domain_init_attr.td$off, td);
            long parent = InlineVerbs.createPP(fn, ctx.handle, a);
            if (parent == 0) {
                int e = InlineVerbs.lastErrno();
                throw new VerbsException("ibv_alloc_parent_domain", e != 0 ? e : Errno.EOPNOTSUPP, null);
            }
            ctx.resources.add(NativeKind.PARENT_DOMAIN, parent);
            return parent;
        } finally {
            NativeMemory.free(a);
        }
    }

    @Override
    public ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public QpType type() {
        checkOpen();
        return type;
    }

    @Override
    public int qpNum() {
        checkOpen();
        return qpNum;
    }

    @Override
    public QpState state() {
        checkOpen();
        int s = NativeMemory.getInt(handle + ibv_qp.state$off);
        return s >= 0 && s <= 7 ? QpState.of(s) : QpState.UNKNOWN;
    }

    @Override
    public QpInitAttributes initAttributes() {
        checkOpen();
        return initAttributes;
    }

    @Override
    public synchronized void modify(QpAttributes attributes) {
        checkOpen();
        Arguments.modifyAttributes(attributes);
        checkOpen();
        long qp = handle;
        int mask = attributes.mask();
        int ports = context.cachedDeviceAttributes().physPortCnt();
        checkPort(mask, QpAttrMask.PORT, attributes.port(), ports, "port");
        if ((mask & QpAttrMask.AV) != 0) {
            checkPort(mask, QpAttrMask.AV, attributes.ahAttr().portNum(), ports, "ahAttr port");
        }
        if ((mask & QpAttrMask.ALT_PATH) != 0) {
            checkPort(mask, QpAttrMask.ALT_PATH, attributes.altPort(), ports, "alternate port");
        }
        long a = NativeMemory.allocate(ibv_qp_attr.SIZEOF);
        try {
            writeQpAttr(a, attributes);
            int rc = context.libs.ibverbs().ibv_modify_qp(qp, a, mask);
            if (rc != 0) {
                throw new VerbsException("ibv_modify_qp", errnoOf(rc), QpAttrMask.toString(mask) + " to "
                        + attributes.state());
            }
        } finally {
            NativeMemory.free(a);
        }
    }

    private static void checkPort(int mask, int bit, int port, int ports, String what) {
        if ((mask & bit) != 0 && (port < 1 || port > ports)) {
            throw new IllegalArgumentException(what + " " + port + " is not a port of the device (1.." + ports + ")");
        }
    }

    private static void writeQpAttr(long a, QpAttributes q) {
        NativeMemory.putInt(a + ibv_qp_attr.qp_state$off, q.state().value());
        NativeMemory.putInt(a + ibv_qp_attr.cur_qp_state$off, q.curState().value());
        NativeMemory.putInt(a + ibv_qp_attr.path_mtu$off, q.pathMtu().value());
        NativeMemory.putInt(a + ibv_qp_attr.path_mig_state$off, q.pathMigState().value());
        NativeMemory.putInt(a + ibv_qp_attr.qkey$off, q.qkey());
        NativeMemory.putInt(a + ibv_qp_attr.rq_psn$off, q.rqPsn());
        NativeMemory.putInt(a + ibv_qp_attr.sq_psn$off, q.sqPsn());
        NativeMemory.putInt(a + ibv_qp_attr.dest_qp_num$off, q.destQpNum());
        NativeMemory.putInt(a + ibv_qp_attr.qp_access_flags$off, q.accessFlags());
        if (q.cap() != null) {
            long cap = a + ibv_qp_attr.cap$off;
            NativeMemory.putInt(cap + ibv_qp_cap.max_send_wr$off, q.cap().maxSendWr());
            NativeMemory.putInt(cap + ibv_qp_cap.max_recv_wr$off, q.cap().maxRecvWr());
            NativeMemory.putInt(cap + ibv_qp_cap.max_send_sge$off, q.cap().maxSendSge());
            NativeMemory.putInt(cap + ibv_qp_cap.max_recv_sge$off, q.cap().maxRecvSge());
            NativeMemory.putInt(cap + ibv_qp_cap.max_inline_data$off, q.cap().maxInlineData());
        }
        if (q.ahAttr() != null) {
            AhAttrs.write(JnrIbverbsBinding.FIELDS, a + ibv_qp_attr.ah_attr$off, q.ahAttr());
        }
        if (q.altAhAttr() != null) {
            AhAttrs.write(JnrIbverbsBinding.FIELDS, a + ibv_qp_attr.alt_ah_attr$off, q.altAhAttr());
        }
        NativeMemory.putShort(a + ibv_qp_attr.pkey_index$off, q.pkeyIndex());
        NativeMemory.putShort(a + ibv_qp_attr.alt_pkey_index$off, q.altPkeyIndex());
        NativeMemory.putByte(a + ibv_qp_attr.en_sqd_async_notify$off, q.enSqdAsyncNotify() ? 1 : 0);
        NativeMemory.putByte(a + ibv_qp_attr.max_rd_atomic$off, q.maxRdAtomic());
        NativeMemory.putByte(a + ibv_qp_attr.max_dest_rd_atomic$off, q.maxDestRdAtomic());
        NativeMemory.putByte(a + ibv_qp_attr.min_rnr_timer$off, q.minRnrTimer());
        NativeMemory.putByte(a + ibv_qp_attr.port_num$off, q.port());
        NativeMemory.putByte(a + ibv_qp_attr.timeout$off, q.timeout());
        NativeMemory.putByte(a + ibv_qp_attr.retry_cnt$off, q.retryCnt());
        NativeMemory.putByte(a + ibv_qp_attr.rnr_retry$off, q.rnrRetry());
        NativeMemory.putByte(a + ibv_qp_attr.alt_port_num$off, q.altPort());
        NativeMemory.putByte(a + ibv_qp_attr.alt_timeout$off, q.altTimeout());
        NativeMemory.putInt(a + ibv_qp_attr.rate_limit$off, q.rateLimit());
    }

    @Override
    public synchronized QpAttributes query() {
        checkOpen();
        long qp = handle;
        long a = NativeMemory.allocate(ibv_qp_attr.SIZEOF);
        long init = NativeMemory.allocate(ibv_qp_init_attr.SIZEOF);
        try {
            int rc = context.libs.ibverbs().ibv_query_qp(qp, a, QUERY_MASK, init);
            if (rc != 0) {
                throw new VerbsException("ibv_query_qp", errnoOf(rc), null);
            }
            return readQpAttr(a);
        } finally {
            NativeMemory.free(a);
            NativeMemory.free(init);
        }
    }

    /** Every attribute of the {@code struct ibv_qp_attr} at {@code a}, each with its mask bit. */
    static QpAttributes readQpAttr(long a) {
        QpAttributes q = new QpAttributes();
        q.state(QpState.of(NativeMemory.getInt(a + ibv_qp_attr.qp_state$off)));
        q.curState(QpState.of(NativeMemory.getInt(a + ibv_qp_attr.cur_qp_state$off)));
        int mtu = NativeMemory.getInt(a + ibv_qp_attr.path_mtu$off);
        if (mtu >= 1 && mtu <= 5) {
            q.pathMtu(Mtu.of(mtu));
        }
        int mig = NativeMemory.getInt(a + ibv_qp_attr.path_mig_state$off);
        if (mig >= 0 && mig <= 2) {
            q.pathMigState(PathMigState.of(mig));
        }
        q.qkey(NativeMemory.getInt(a + ibv_qp_attr.qkey$off));
        q.rqPsn(NativeMemory.getInt(a + ibv_qp_attr.rq_psn$off) & 0xffffff);
        q.sqPsn(NativeMemory.getInt(a + ibv_qp_attr.sq_psn$off) & 0xffffff);
        q.destQpNum(NativeMemory.getInt(a + ibv_qp_attr.dest_qp_num$off) & 0xffffff);
        q.accessFlags(NativeMemory.getInt(a + ibv_qp_attr.qp_access_flags$off) & org.verbs4j.AccessFlags.ALL);
        long cap = a + ibv_qp_attr.cap$off;
        q.cap(new QpCapabilities(NativeMemory.getInt(cap + ibv_qp_cap.max_send_wr$off),
                NativeMemory.getInt(cap + ibv_qp_cap.max_recv_wr$off),
                NativeMemory.getInt(cap + ibv_qp_cap.max_send_sge$off),
                NativeMemory.getInt(cap + ibv_qp_cap.max_recv_sge$off),
                NativeMemory.getInt(cap + ibv_qp_cap.max_inline_data$off)));
        AhAttributes av = AhAttrs.read(JnrIbverbsBinding.FIELDS, a + ibv_qp_attr.ah_attr$off);
        if (av != null) {
            q.ahAttr(av);
        }
        AhAttributes alt = AhAttrs.read(JnrIbverbsBinding.FIELDS, a + ibv_qp_attr.alt_ah_attr$off);
        if (alt != null) {
            q.altPath(alt, NativeMemory.getU16(a + ibv_qp_attr.alt_pkey_index$off),
                    NativeMemory.getU8(a + ibv_qp_attr.alt_port_num$off),
                    NativeMemory.getU8(a + ibv_qp_attr.alt_timeout$off) & 31);
        }
        q.pkeyIndex(NativeMemory.getU16(a + ibv_qp_attr.pkey_index$off));
        q.enSqdAsyncNotify(NativeMemory.getU8(a + ibv_qp_attr.en_sqd_async_notify$off) != 0);
        q.sqDraining(NativeMemory.getU8(a + ibv_qp_attr.sq_draining$off) != 0);
        q.maxRdAtomic(NativeMemory.getU8(a + ibv_qp_attr.max_rd_atomic$off));
        q.maxDestRdAtomic(NativeMemory.getU8(a + ibv_qp_attr.max_dest_rd_atomic$off));
        q.minRnrTimer(NativeMemory.getU8(a + ibv_qp_attr.min_rnr_timer$off) & 31);
        int port = NativeMemory.getU8(a + ibv_qp_attr.port_num$off);
        if (port != 0) {
            q.port(port);
        }
        q.timeout(NativeMemory.getU8(a + ibv_qp_attr.timeout$off) & 31);
        q.retryCnt(NativeMemory.getU8(a + ibv_qp_attr.retry_cnt$off) & 7);
        q.rnrRetry(NativeMemory.getU8(a + ibv_qp_attr.rnr_retry$off) & 7);
        return q;
    }

    @Override
    public synchronized void postRecv(RecvWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        long qp = checkRecv();
        String why = invalidRecv(wr);
        if (why != null) {
            throw new PostRecvException("ibv_post_recv", Errno.EINVAL, 0, why);
        }
        long list = recvWrs.write(wr);
        int rc = InlineVerbs.callPPP(postRecv, qp, list, recvWrs.badWr);
        if (rc != 0) {
            throw new PostRecvException("ibv_post_recv", rc, 0, null);
        }
    }

    @Override
    public synchronized void postRecv(List<RecvWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        long qp = checkRecv();
        int n = wrs.size();
        int firstBad = n;
        String why = null;
        for (int i = 0; i < n && firstBad == n; i++) {
            why = invalidRecv(Objects.requireNonNull(wrs.get(i), "wrs element"));
            if (why != null) {
                firstBad = i;
            }
        }
        if (firstBad > 0) {
            long list = recvWrs.write(firstBad == n ? wrs : wrs.subList(0, firstBad));
            int rc = InlineVerbs.callPPP(postRecv, qp, list, recvWrs.badWr);
            if (rc != 0) {
                throw new PostRecvException("ibv_post_recv", rc, recvWrs.badIndex(), null);
            }
        }
        if (firstBad < n) {
            throw new PostRecvException("ibv_post_recv", Errno.EINVAL, firstBad, why);
        }
    }

    /** Why {@code ibv_post_recv(3)} refuses the WR, checked here for every provider library, or null. */
    private String invalidRecv(RecvWr wr) {
        if (state() == QpState.RESET) {
            return "the QP is in RESET; receives are posted from INIT on";
        }
        if (wr.numSge() > initAttributes.cap().maxRecvSge()) {
            return wr.numSge() + " SGEs, but the QP was granted max_recv_sge " + initAttributes.cap().maxRecvSge();
        }
        return null;
    }

    private long checkRecv() {
        checkOpen();
        long qp = handle;
        if (srq != null) {
            throw new IllegalStateException("this QP receives through its SRQ; post receives to the SRQ");
        }
        return qp;
    }

    private boolean canSend() {
        QpState s = state();
        return s == QpState.RTS || s == QpState.SQD || s == QpState.SQE || s == QpState.ERR;
    }

    /**
     * Refuses a send-queue verb inside this thread's open WR session: rxe holds the send queue's spinlock from
     * {@code ibv_wr_start} to {@code ibv_wr_complete}, so the call would never return.
     */
    private void checkNotInSession() {
        if (session != null) {
            session.qpSide().checkNotOpenInThisThread();
        }
    }

    private boolean ipCsum() {
        return (context.cachedDeviceAttributes().deviceCapFlags() & org.verbs4j.DeviceAttributes.CAP_UD_IP_CSUM) != 0;
    }

    @Override
    public synchronized void postSend(SendWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        // A reused one-element list keeps the single-WR post free of allocation.
        single[0] = wr;
        try {
            postSend(singleList);
        } finally {
            single[0] = null;
        }
    }

    @Override
    public synchronized void postSend(List<SendWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        checkNotInSession();
        checkOpen();
        long qp = handle;
        int n = wrs.size();
        if (n == 0) {
            return;
        }
        // One pass checks every WR in Java terms (those errors throw before anything is posted) and writes
        // the ones before the first that the verbs refuse. The QP's state is read once per post.
        boolean canSend = canSend();
        int firstBad = sendWrs.prepare(wrs, n, canSend, type, initAttributes.cap(), ipCsum(), pd.regions());
        if (!canSend) {
            throw new PostSendException(Errno.EINVAL, 0, "the QP is in " + state()
                    + "; sends are posted in RTS, SQD, SQE or ERR");
        }
        if (firstBad > 0) {
            int rc = InlineVerbs.callPPP(postSend, qp, sendWrs.address(), sendWrs.badWr);
            if (rc != 0) {
                int bad = sendWrs.badIndex();
                if (sendWrs.binds) {
                    trackBinds(wrs, bad);
                }
                throw new PostSendException(rc, bad, null);
            }
            if (sendWrs.binds) {
                trackBinds(wrs, firstBad);
            }
        }
        if (firstBad < n) {
            throw new PostSendException(sendWrs.refusalErrno, firstBad, sendWrs.refusalDetail);
        }
    }

    /** Records the regions the posted BIND_MW WRs bind, so those regions refuse to close while bound. */
    private static void trackBinds(List<SendWr> wrs, int posted) {
        for (int i = 0; i < posted; i++) {
            SendWr wr = wrs.get(i);
            if (wr.opcode() == WrOpcode.BIND_MW) {
                ((NativeMemoryWindow) wr.bindMwWindow()).boundByWr(wr.bindMwRkey(), wr.bindMwInfo());
            }
        }
    }

    @Override
    public WrSession startWr() {
        checkOpen();
        if (session == null) {
            throw new IllegalStateException("the QP was created without sendOps, so it has no WR session");
        }
        session.qpSide().open();
        return session;
    }

    @Override
    public synchronized int bindMw(MemoryWindow mw, long wrId, int sendFlags, MwBindInfo bindInfo) {
        checkOpen();
        checkNotInSession();
        Objects.requireNonNull(mw, "mw");
        Objects.requireNonNull(bindInfo, "bindInfo");
        checkOpen();
        long qp = handle;
        if (!(mw instanceof NativeMemoryWindow w) || w.nativeContext() != context) {
            throw new IllegalArgumentException("the memory window belongs to another context or provider");
        }
        if (w.type() != MwType.TYPE_1) {
            throw new IllegalArgumentException("bindMw binds type 1 windows; bind type 2 with a BIND_MW WR");
        }
        if (!(bindInfo.mr() instanceof NativeMemoryRegion mr) || mr.nativeContext() != context) {
            throw new IllegalArgumentException("the bind info's region belongs to another context or provider");
        }
        String outside = Arguments.bindRange(bindInfo);
        if (outside != null) {
            throw new VerbsException("ibv_bind_mw", Errno.EINVAL, outside);
        }
        w.checkOpen();
        long mwh = w.handle();
        mr.checkOpen();
        long mrh = mr.handle();
        NativeMemory.putLong(mwBind + ibv_mw_bind.wr_id$off, wrId);
        NativeMemory.putInt(mwBind + ibv_mw_bind.send_flags$off, sendFlags);
        NativeMemory.putAddress(mwBind + ibv_mw_bind.bind_info$mr$off, mrh);
        NativeMemory.putLong(mwBind + ibv_mw_bind.bind_info$addr$off, bindInfo.addr());
        NativeMemory.putLong(mwBind + ibv_mw_bind.bind_info$length$off, bindInfo.length());
        NativeMemory.putInt(mwBind + ibv_mw_bind.bind_info$mw_access_flags$off, bindInfo.mwAccessFlags());
        int rc = InlineVerbs.callPPP(context.op(ibv_context.ops$bind_mw$off), qp, mwh, mwBind);
        if (rc != 0) {
            throw new VerbsException("ibv_bind_mw", rc, null);
        }
        w.boundTo(bindInfo.length() == 0 ? null : mr);
        return w.rkey();
    }

    @Override
    public synchronized int queryDataInOrder(WrOpcode op, int flags) {
        checkOpen();
        if (!Arguments.dataInOrderQuery(op, flags)) {
            return 0;
        }
        long qp = handle;
        var ib = context.libs.ibverbs();
        int capsMask = DataInOrder.WHOLE_MSG.bit() | DataInOrder.ALIGNED_128_BYTES.bit();
        if (context.libs.rdmaCoreMajor() >= 50) {
            int r = ib.ibv_query_qp_data_in_order(qp, op.value(), flags);
            return flags == 0 ? (r == 1 ? 1 : 0) : r & capsMask;
        }
        // rdma-core before 50 takes only flags 0, whose answer is the WHOLE_MSG bit of RETURN_CAPS.
        boolean whole = ib.ibv_query_qp_data_in_order(qp, op.value(), 0) == 1;
        if (flags == 0) {
            return whole ? 1 : 0;
        }
        return whole ? DataInOrder.WHOLE_MSG.bit() : 0;
    }

    @Override
    protected AbstractWrSession wrSession() {
        return session;
    }

    @Override
    protected int destroy() {
        int rc = context.libs.ibverbs().ibv_destroy_qp(handle);
        return rc == 0 ? 0 : errnoOf(rc);
    }

    @Override
    protected synchronized void afterDestroy() {
        context.untrack(NativeKind.QP, handle, this);
        sendWrs.free();
        recvWrs.free();
        context.resources.free(mwBind);
        if (parentDomain != 0) {
            context.libs.ibverbs().ibv_dealloc_pd(parentDomain);
            context.resources.remove(NativeKind.PARENT_DOMAIN, parentDomain);
        }
    }

    Set<WrOpcode> sendOps() {
        return initAttributes.sendOps();
    }
}
