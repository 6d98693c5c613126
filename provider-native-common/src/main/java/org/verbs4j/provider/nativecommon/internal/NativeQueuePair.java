package org.verbs4j.provider.nativecommon.internal;

import java.util.List;
import java.util.Objects;
import org.verbs4j.DataInOrder;
import org.verbs4j.Ece;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostRecvException;
import org.verbs4j.PreparedSends;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpRateLimit;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendWr;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.provider.nativecommon.IbverbsHandle;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw_bind;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_ece;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_init_attr;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_rate_limit_attr;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.AbstractWrSession;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.CallHold;
import org.verbs4j.spi.support.MulticastAttachments;
import org.verbs4j.spi.support.RegionTable;
import org.verbs4j.spi.support.SendQueueLock;
import org.verbs4j.spi.support.ThreadConfinement;

/**
 * A queue pair, {@code struct ibv_qp}, of either native provider, and its {@code ibv_qp_ex} when created with
 * {@code sendOps}. Its state is {@code ibv_qp.state}, which libibverbs updates at every successful modify and
 * query (rdma_cm's included). {@code postSend} goes through {@link NativeSendPoster}, {@code postRecv} through
 * {@link NativeRecvPoster} (unless the QP receives through an SRQ), and {@link #startWr()} opens the provider's
 * WR session. Created by {@link NativeQueuePairs}, an XRC_RECV QP by {@link NativeXrcDomain}: it has no PD, no CQ
 * and no queue to post to, and neither has an XRC_SEND QP a receive queue, so those posts are refused here before
 * any library call: a provider library may not check, and the QP has no CQ to report to.
 *
 * <p>The destroy verb runs under the QP's monitor and both posting locks and marks the QP closed before it
 * lets them go, so a post, a modify or a query checks {@link #checkOpen()} again once it holds its lock,
 * instead of calling into a destroyed QP or its freed scratch memory.
 *
 * @see "ibv_create_qp(3), ibv_modify_qp(3), ibv_query_qp(3), ibv_post_send(3), ibv_post_recv(3)"
 */
public final class NativeQueuePair extends NativeObject implements QueuePair {
    private static final int QUERY_MASK = QpAttrMask.ALL & ~QpAttrMask.RATE_LIMIT;

    private final IbverbsBinding binding;
    private final ProtectionDomain pd;
    /** The parent domain pairing the PD with the thread domain, or 0; deallocated after the QP. */
    private final long parentDomain;
    private final QpInitAttributes init;
    private final QpType type;
    private final int qpNum;
    private final NativeScratch scratch;
    private final NativeSendPoster sendPoster;
    private final NativeRecvPoster recvPoster;
    /** {@code struct ibv_mw_bind} for {@link #bindMw}, used under the send lock. */
    private final long mwBind;
    private final long bindMwOp;
    private final NativeWrSession session;
    private final AbstractWrSession.Control sessionControl;
    /**
     * The send lock: {@code postSend}, the type 1 {@code bindMw} and the destroy verb take it, and the WR session
     * holds it while open. So no two calls into the send queue overlap, and the provider library's own send-queue
     * lock, which it holds from {@code wr_start} to {@code wr_complete} while Java code runs, is never contended:
     * the condition for a critical {@code post_send} or {@code wr_start} ({@link CriticalDataPath}). A QP created
     * with a thread domain is confined to one thread ({@link ThreadConfinement}), and its lock takes no atomic.
     */
    private final SendQueueLock sendLock;
    private final Object recvLock = new Object();
    /** The multicast groups attached, detached by the destroy verb first (the kernel refuses it with EBUSY). */
    private final MulticastAttachments multicast;

    /**
     * Wraps a QP the library made.
     *
     * @param context its context
     * @param pd its protection domain; null for an XRC_RECV QP
     * @param regions the PD's live regions, for inline data
     * @param qp the {@code struct ibv_qp *}
     * @param qpx its {@code struct ibv_qp_ex *} for the WR session, or 0
     * @param parentDomain the parent domain it was created in, or 0
     * @param init the attributes granted
     * @param sendCq its send CQ, or null (XRC_RECV)
     * @param recvCq its receive CQ, or null (XRC_RECV)
     * @param srq its SRQ, or null
     * @param td its thread domain, or null
     * @param xrcd the XRC domain of an XRC_RECV QP, or null
     */
    <C extends AbstractVerbsObject & NativeContextSupport, P extends AbstractVerbsObject & ProtectionDomain>
            NativeQueuePair(C context, P pd, RegionTable regions, long qp, long qpx, long parentDomain,
                            QpInitAttributes init, AbstractVerbsObject sendCq, AbstractVerbsObject recvCq,
                            NativeSharedReceiveQueue srq, NativeThreadDomain td, NativeXrcDomain xrcd) {
        super("QueuePair", context, NativeKind.QP, qp);
        this.binding = context.binding();
        this.pd = pd;
        this.parentDomain = parentDomain;
        this.init = init;
        this.type = init.type();
        this.multicast = new MulticastAttachments(type);
        this.qpNum = binding.getInt(qp + ibv_qp.qp_num$off);
        this.sendLock = new SendQueueLock(td == null ? null : ThreadConfinement.forQueuePair());
        this.scratch = new NativeScratch(binding, this);
        try {
            this.sendPoster = new NativeSendPoster(context, scratch, regions, type, init.cap());
            this.recvPoster = srq != null ? null : new NativeRecvPoster(binding, scratch, "ibv_post_recv",
                    context.contextOp(ibv_context.ops$post_recv$off), init.cap().maxRecvWr(),
                    init.cap().maxRecvSge(), context.criticalDataPath());
            this.mwBind = scratch.allocate(ibv_mw_bind.SIZEOF);
            this.bindMwOp = context.op("bind_mw");
            long sessionBytes = NativeWrSession.scratchBytes(init);
            this.session = qpx == 0 ? null : new NativeWrSession(this, binding, qpx, init, context.ipCsum(),
                    scratch.allocate(sessionBytes), sessionBytes, sendLock,
                    context.criticalDataPath());
            this.sessionControl = session == null ? null : session.qpSide();
        } catch (RuntimeException e) {
            // The factory destroys the QP, so the context must not.
            forget();
            scratch.free();
            throw e;
        }
        for (AbstractVerbsObject used : new AbstractVerbsObject[] {pd, sendCq, recvCq, srq, td, xrcd}) {
            if (used != null) {
                dependOn(used);
            }
        }
        if (parentDomain != 0) {
            context.track(NativeKind.PARENT_DOMAIN, parentDomain, this);
        }
        try {
            register();
        } catch (RuntimeException e) {
            // The context is closing: the factory destroys the QP, so the context must not.
            forget();
            if (parentDomain != 0) {
                context.untrack(NativeKind.PARENT_DOMAIN, parentDomain, this);
            }
            scratch.free();
            throw e;
        }
    }

    /**
     * The API's state for a value of {@code enum ibv_qp_state}.
     *
     * @param s the value
     * @return the state; {@link QpState#UNKNOWN} for a value outside the enum
     */
    static QpState stateOf(int s) {
        return s >= 0 && s <= 7 ? QpState.of(s) : QpState.UNKNOWN;
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

    /**
     * {@code ibv_qp.state}; on an XRC_RECV QP after an {@code ibv_query_qp} of the state, which libibverbs writes
     * there: the QP is shared, and a modify through another of its handles ({@code ibv_open_qp}) changes it without
     * this handle's knowledge (an opened handle starts as {@code IBV_QPS_UNKNOWN}). A failed query leaves the last
     * state known.
     */
    @Override
    public synchronized QpState state() {
        checkOpen();
        if (type == QpType.XRC_RECV) {
            try (TempMemory a = new TempMemory(binding)) {
                binding.queryQp(handle, a.allocate(ibv_qp_attr.SIZEOF), QpAttrMask.STATE,
                        a.allocate(ibv_qp_init_attr.SIZEOF));
            }
        }
        return stateOf(binding.getInt(handle + ibv_qp.state$off));
    }

    /**
     * Whether the send queue takes work in the state last set or seen (RTS, SQD, SQE or ERR). Called under
     * the send lock or inside the WR session, which the destroy verb waits for.
     *
     * @return whether it does
     */
    public boolean sendQueueReady() {
        int s = binding.getInt(handle + ibv_qp.state$off);
        return s >= QpState.RTS.value() && s <= QpState.ERR.value();
    }

    @Override
    public QpInitAttributes initAttributes() {
        checkOpen();
        return init;
    }

    @Override
    public synchronized void modify(QpAttributes attributes) {
        checkOpen();
        Arguments.modifyAttributes(attributes);
        int mask = attributes.mask();
        if ((mask & QpAttrMask.PORT) != 0) {
            nativeContext().checkPort(attributes.port());
        }
        if ((mask & QpAttrMask.AV) != 0) {
            nativeContext().checkPort(attributes.ahAttr().portNum());
        }
        if ((mask & QpAttrMask.ALT_PATH) != 0) {
            nativeContext().checkPort(attributes.altPort());
        }
        try (TempMemory a = new TempMemory(binding)) {
            long attr = a.allocate(ibv_qp_attr.SIZEOF);
            NativeQpAttrs.writeQpAttr(binding, attr, attributes);
            QpState from = stateOf(binding.getInt(handle + ibv_qp.state$off));
            int rc = binding.modifyQp(handle, attr, mask);
            if (rc != 0) {
                throw NativeErrors.exception(rc, "ibv_modify_qp", from + " -> " + attributes.state() + ", mask "
                        + QpAttrMask.toString(mask));
            }
        }
    }

    @Override
    public synchronized QpAttributes query() {
        checkOpen();
        try (TempMemory a = new TempMemory(binding)) {
            long attr = a.allocate(ibv_qp_attr.SIZEOF);
            long initAttr = a.allocate(ibv_qp_init_attr.SIZEOF);
            NativeErrors.check(binding.queryQp(handle, attr, QUERY_MASK, initAttr), "ibv_query_qp", null);
            return NativeQpAttrs.readQpAttr(binding, attr, QUERY_MASK);
        }
    }

    @Override
    public void postRecv(RecvWr wr) {
        checkReceiver();
        Objects.requireNonNull(wr, "wr");
        synchronized (recvLock) {
            checkReceiveState();
            recvPoster.post(handle, wr);
        }
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        checkReceiver();
        Objects.requireNonNull(wrs, "wrs");
        synchronized (recvLock) {
            checkReceiveState();
            recvPoster.post(handle, wrs);
        }
    }

    private void checkReceiver() {
        checkOpen();
        // before the library: an XRC QP has no receive queue, and a library may post into the missing one
        Arguments.hasRecvQueue(type);
        if (recvPoster == null) {
            throw new IllegalStateException("this QP receives through its SRQ; post receives to the SRQ");
        }
    }

    /** Under the receive lock: the QP is open, and takes receives from INIT on (IBA 10.3.1). */
    private void checkReceiveState() {
        checkOpen();
        if (binding.getInt(handle + ibv_qp.state$off) == QpState.RESET.value()) {
            // Not every provider library checks it.
            throw new PostRecvException("ibv_post_recv", Errno.EINVAL, 0,
                    "the QP is in RESET; receives are posted from INIT on");
        }
    }

    /** Refuses a send-queue verb inside this thread's open WR session (see AbstractWrSession). */
    private void checkNotInSession() {
        if (sessionControl != null) {
            sessionControl.checkNotOpenInThisThread();
        }
    }

    /**
     * Takes the send lock for one post. A thread that holds it already has the QP's WR session open (the one hold
     * that spans calls), and its post is refused with the session's IllegalStateException: the check rides on the
     * lock's own compare-and-set instead of a read of the session before it.
     */
    private void lockToPost() {
        if (!sendLock.lockUnlessHeld()) {
            checkNotInSession();
            throw new IllegalStateException("this thread holds the QP's send lock");
        }
    }

    @Override
    public void postSend(SendWr wr) {
        checkOpen();
        Arguments.hasSendQueue(type);
        Objects.requireNonNull(wr, "wr");
        lockToPost();
        try {
            checkOpen();
            sendPoster.post(handle, sendQueueReady(), wr);
        } finally {
            sendLock.unlock();
        }
    }

    @Override
    public void postSend(List<SendWr> wrs) {
        checkOpen();
        Arguments.hasSendQueue(type);
        Objects.requireNonNull(wrs, "wrs");
        int size = wrs.size();
        for (int i = 0; i < size; i++) {
            Objects.requireNonNull(wrs.get(i), "wrs element");
        }
        lockToPost();
        try {
            checkOpen();
            // The QP's state is read once per post: a modify racing with it takes effect before or after.
            sendPoster.post(handle, sendQueueReady(), wrs);
        } finally {
            sendLock.unlock();
        }
    }

    @Override
    public PreparedSends prepareSends(int capacity) {
        checkOpen();
        return new NativePreparedSends(this, sendPoster, type, capacity, init.cap().maxSendSge());
    }

    /**
     * Posts the first {@code n} slots of a prepared array, under the send lock, as {@code postSend} does.
     *
     * @param sends the array, of this QP
     * @param n the slots to post
     */
    void postPrepared(NativePreparedSends sends, int n) {
        checkOpen();
        Arguments.hasSendQueue(type);
        lockToPost();
        try {
            checkOpen();
            sends.postLocked(handle, sendQueueReady(), n);
        } finally {
            sendLock.unlock();
        }
    }

    /** {@return the lock of {@code postSend} and the WR session, which a prepared array's release takes too} */
    SendQueueLock sendLock() {
        return sendLock;
    }

    @Override
    public WrSession startWr() {
        checkOpen();
        Arguments.hasSendQueue(type);
        if (session == null) {
            throw new IllegalStateException("this QP was created without sendOps; it has no WR session");
        }
        sessionControl.open();
        return session;
    }

    @Override
    public int bindMw(MemoryWindow mw, long wrId, int sendFlags, MwBindInfo bindInfo) {
        checkOpen();
        // a bind is a send WR: an XRC_RECV QP has no send queue (and no send CQ) to take it
        Arguments.hasSendQueue(type);
        checkNotInSession();
        Objects.requireNonNull(mw, "mw");
        Objects.requireNonNull(bindInfo, "bindInfo");
        if (!(mw instanceof NativeMemoryWindow w) || w.nativeContext() != nativeContext()) {
            throw new IllegalArgumentException("the memory window belongs to another context or provider");
        }
        w.checkOpen();
        if (w.type() != MwType.TYPE_1) {
            throw new IllegalArgumentException("bindMw binds type 1 windows; bind a type 2 window in a WrSession");
        }
        if (!(bindInfo.mr() instanceof NativeMemoryRegion mr) || mr.nativeContext() != nativeContext()) {
            throw new IllegalArgumentException("the bind info's region belongs to another context or provider");
        }
        mr.checkOpen();
        if (mr.pd() != w.pd()) {
            throw new VerbsException("ibv_bind_mw", Errno.EPERM, "the window and the region are in different PDs");
        }
        String outside = Arguments.bindRange(bindInfo);
        if (outside != null) {
            throw new VerbsException("ibv_bind_mw", Errno.EINVAL, outside);
        }
        int rc;
        sendLock.lock();
        try {
            checkOpen();
            // The window and the region are held until the library has read them: a close waits for the call.
            try (CallHold hold = CallHold.on(w).and(mr, "the bind info's region")) {
                IbverbsBinding b = binding;
                b.putLong(mwBind + ibv_mw_bind.wr_id$off, wrId);
                b.putInt(mwBind + ibv_mw_bind.send_flags$off, sendFlags);
                b.putLong(mwBind + ibv_mw_bind.bind_info$mr$off, mr.handle());
                b.putLong(mwBind + ibv_mw_bind.bind_info$addr$off, bindInfo.addr());
                b.putLong(mwBind + ibv_mw_bind.bind_info$length$off, bindInfo.length());
                b.putInt(mwBind + ibv_mw_bind.bind_info$mw_access_flags$off, bindInfo.mwAccessFlags());
                rc = b.libibverbsOps().bind_mw(bindMwOp, handle, w.handle(), mwBind);
            }
        } finally {
            sendLock.unlock();
        }
        NativeErrors.check(rc, "ibv_bind_mw", null);
        w.boundTo(bindInfo.length() > 0 ? mr : null);
        return w.rkey();
    }

    @Override
    public synchronized int queryDataInOrder(WrOpcode op, int flags) {
        checkOpen();
        if (!Arguments.dataInOrderQuery(op, flags)) {
            return 0;
        }
        // Flags 0 has one meaning in every rdma-core that has the verb: 1 exactly when WHOLE_MSG holds.
        boolean whole = binding.queryDataInOrder(handle, op.value(), 0) == 1;
        if (flags == 0) {
            return whole ? 1 : 0;
        }
        // A library that knows RETURN_CAPS (rdma-core 50 and later) reports WHOLE_MSG in it exactly when flags 0
        // says 1. One that does not (44) answers RETURN_CAPS with 0 or as flags 0, and then WHOLE_MSG is all that
        // is known. The answers tell which library this is; no version is asked, so a vendor's build is right too.
        int caps = binding.queryDataInOrder(handle, op.value(), flags)
                & (DataInOrder.WHOLE_MSG.bit() | DataInOrder.ALIGNED_128_BYTES.bit());
        if (((caps & DataInOrder.WHOLE_MSG.bit()) != 0) == whole) {
            return caps;
        }
        return whole ? DataInOrder.WHOLE_MSG.bit() : 0;
    }

    @Override
    public synchronized Ece queryEce() {
        checkOpen();
        try (TempMemory a = new TempMemory(binding)) {
            long ece = a.allocate(ibv_ece.SIZEOF);
            NativeErrors.check(binding.libibverbs().ibv_query_ece(handle, ece), "ibv_query_ece", null);
            return new Ece(binding.getInt(ece + ibv_ece.vendor_id$off), binding.getInt(ece + ibv_ece.options$off),
                    binding.getInt(ece + ibv_ece.comp_mask$off));
        }
    }

    @Override
    public synchronized void setEce(Ece ece) {
        checkOpen();
        Objects.requireNonNull(ece, "ece");
        try (TempMemory a = new TempMemory(binding)) {
            long raw = a.allocate(ibv_ece.SIZEOF);
            binding.putInt(raw + ibv_ece.vendor_id$off, ece.vendorId());
            binding.putInt(raw + ibv_ece.options$off, ece.options());
            binding.putInt(raw + ibv_ece.comp_mask$off, ece.compMask());
            NativeErrors.check(binding.libibverbs().ibv_set_ece(handle, raw), "ibv_set_ece", null);
        }
    }

    /**
     * Through {@code verbs_context.modify_qp_rate_limit}, as the inline {@code ibv_modify_qp_rate_limit} calls it: a
     * library without the op (librxe) answers EOPNOTSUPP, the device's range and QP types are its own.
     */
    @Override
    public synchronized void modifyRateLimit(QpRateLimit limit) {
        checkOpen();
        Objects.requireNonNull(limit, "limit");
        long fn = nativeContext().op("modify_qp_rate_limit");
        if (fn == 0) {
            throw new VerbsException("ibv_modify_qp_rate_limit", Errno.EOPNOTSUPP, "the library has no packet pacing");
        }
        try (TempMemory a = new TempMemory(binding)) {
            long attr = a.allocate(ibv_qp_rate_limit_attr.SIZEOF);
            binding.putInt(attr + ibv_qp_rate_limit_attr.rate_limit$off, limit.rateLimit());
            binding.putInt(attr + ibv_qp_rate_limit_attr.max_burst_sz$off, limit.maxBurstSize());
            binding.putShort(attr + ibv_qp_rate_limit_attr.typical_pkt_sz$off, (short) limit.typicalPacketSize());
            NativeErrors.check(binding.libibverbsOps().modify_qp_rate_limit(fn, handle, attr),
                    "ibv_modify_qp_rate_limit", limit.rateKbps() + " kbps");
        }
    }

    @Override
    public synchronized void attachMulticast(Gid gid, int lid) {
        checkOpen();
        MulticastAttachments.checkArguments(gid, lid);
        multicast.attach(gid, lid, (g, l) -> NativeErrors.errno(mcast(g, l, true)));
    }

    @Override
    public synchronized void detachMulticast(Gid gid, int lid) {
        checkOpen();
        MulticastAttachments.checkArguments(gid, lid);
        multicast.detach(gid, lid, (g, l) -> NativeErrors.errno(mcast(g, l, false)));
    }

    /**
     * {@code ibv_attach_mcast} or {@code ibv_detach_mcast}: 0 or −errno. The context records what worked, for a
     * Cleaner that destroys the QP of a context never closed.
     */
    private int mcast(Gid gid, int lid, boolean attach) {
        int rc;
        try (TempMemory a = new TempMemory(binding)) {
            long raw = a.allocate(16);
            binding.putBytes(raw, gid.toBytes());
            rc = attach ? binding.attachMcast(handle, raw, lid) : binding.detachMcast(handle, raw, lid);
        }
        if (rc == 0) {
            nativeContext().multicastChanged(handle, gid, lid, attach);
        }
        return rc;
    }

    /** Offers {@link IbverbsHandle}, the door for vendor extensions, besides this object itself. */
    @Override
    public <T> T unwrap(Class<T> type) {
        checkOpen();
        return type == IbverbsHandle.class ? type.cast(NativeHandles.of(this)) : QueuePair.super.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        checkOpen();
        return type == IbverbsHandle.class || QueuePair.super.isWrapperFor(type);
    }

    @Override
    protected AbstractWrSession wrSession() {
        return session;
    }

    @Override
    protected ThreadConfinement confinement() {
        return sendLock.confinement();
    }

    @Override
    protected int destroy() {
        // Both posting locks: no post runs inside the destroy verb, and none starts after it. The session's close
        // already holds the send lock (lockForDestroy); it is reentrant.
        sendLock.lock();
        try {
            synchronized (recvLock) {
                multicast.detachAll((g, l) -> mcast(g, l, false));
                int errno = NativeErrors.errno(binding.destroyQp(handle));
                if (errno == 0) {
                    // Still under both posting locks: a post that waited for them finds the QP closed.
                    markClosed();
                }
                return errno;
            }
        } finally {
            sendLock.unlock();
        }
    }

    @Override
    protected void afterDestroy() {
        super.afterDestroy();
        scratch.free();
        if (parentDomain != 0) {
            binding.deallocPd(parentDomain);
            nativeContext().untrack(NativeKind.PARENT_DOMAIN, parentDomain, this);
        }
    }

    @Override
    public String toString() {
        return "NativeQueuePair[" + type + ", qpn=0x" + Integer.toHexString(qpNum) + (isClosed() ? ", closed" : "")
                + "]";
    }
}
