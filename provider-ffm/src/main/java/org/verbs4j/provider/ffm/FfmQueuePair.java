package org.verbs4j.provider.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.List;
import java.util.Objects;
import org.verbs4j.DataInOrder;
import org.verbs4j.Errno;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PostRecvException;
import org.verbs4j.PostSendException;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.ibv_mw_bind;
import org.verbs4j.provider.ffm.internal.Structs.ibv_mw_bind_info;
import org.verbs4j.provider.ffm.internal.Structs.ibv_qp;
import org.verbs4j.provider.ffm.internal.Structs.ibv_qp_attr;
import org.verbs4j.provider.ffm.internal.Structs.ibv_send_wr;
import org.verbs4j.provider.ffm.internal.Structs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionQueue;
import org.verbs4j.provider.nativecommon.internal.NativeProtectionDomain;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs;
import org.verbs4j.provider.nativecommon.internal.QpStructs;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.AbstractWrSession;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryRegion;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryWindow;
import org.verbs4j.provider.nativecommon.internal.NativeAddressHandle;
import org.verbs4j.provider.nativecommon.internal.NativeThreadDomain;

/**
 * A queue pair, {@code struct ibv_qp}, and its {@code ibv_qp_ex} when created with {@code sendOps}.
 * {@code postSend} fills a reused native {@code ibv_send_wr} array and calls {@code ops.post_send};
 * {@code postRecv} does the same with {@code ops.post_recv}; {@link #startWr()} opens the
 * {@link FfmWrSession} that drives the {@code ibv_qp_ex} function pointers.
 */
final class FfmQueuePair extends AbstractVerbsObject implements QueuePair {
    final FfmContext ctx;
    private static final long WR_SIZE = ibv_send_wr.LAYOUT.byteSize();
    private static final long SGE_SIZE = ibv_sge.LAYOUT.byteSize();
    private static final int QUERY_MASK = QpAttrMask.ALL & ~QpAttrMask.RATE_LIMIT;

    private final NativeProtectionDomain pd;
    final MemorySegment qp;
    private final QpInitAttributes init;
    private final QpType type;
    private final int qpNum;
    private final NativeCompletionQueue sendCq;
    private final NativeCompletionQueue recvCq;
    private final FfmSharedReceiveQueue srq;
    private final NativeThreadDomain td;
    private final MemorySegment parentDomain;
    private final Scratch scratch;
    private final RecvPoster recvPoster;
    private final FfmWrSession session;
    private volatile QpState state = QpState.RESET;

    /**
     * The posting locks. The destroy verb runs under both and marks the QP closed before it lets them go, so a
     * post checks {@link #checkOpen()} again once it has its lock, instead of calling into a destroyed QP or its
     * freed scratch memory.
     */
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();
    private final int sendCapacity;
    private final int sgePerWr;
    private final MemorySegment sendWrs;
    private final MemorySegment sendSges;
    private final long sgeStride;
    private final int sendFlagsAllowed;
    /** RC or UC: the {@code wr} union holds the RDMA fields, and there is no UD address or XRC SRQ number. */
    private final boolean connected;
    private final MemorySegment badWr;

    FfmQueuePair(NativeProtectionDomain pd, MemorySegment qp, MemorySegment qpx, QpInitAttributes init,
                 NativeCompletionQueue sendCq, NativeCompletionQueue recvCq, FfmSharedReceiveQueue srq,
                 NativeThreadDomain td, MemorySegment parentDomain) {
        super("QueuePair", ((FfmContext) pd.nativeContext()));
        this.ctx = ((FfmContext) pd.nativeContext());
        this.pd = pd;
        this.qp = qp.reinterpret(ibv_qp.LAYOUT.byteSize());
        this.init = init;
        this.type = init.type();
        this.qpNum = (int) ibv_qp.qp_num$vh.get(this.qp, 0L);
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.td = td;
        this.parentDomain = parentDomain;
        this.scratch = new Scratch(this);
        this.sendCapacity = Math.max(1, Math.min(256, init.cap().maxSendWr()));
        this.sgePerWr = Math.max(1, init.cap().maxSendSge());
        this.sendWrs = scratch.allocate(WR_SIZE * sendCapacity);
        this.sgeStride = SGE_SIZE * sgePerWr;
        this.sendSges = scratch.allocate(sgeStride * sendCapacity);
        this.badWr = scratch.allocate(8);
        this.connected = type == QpType.RC || type == QpType.UC;
        this.sendFlagsAllowed = ((FfmContext) pd.nativeContext()).ipCsum ? SendFlags.ALL : SendFlags.ALL & ~SendFlags.IP_CSUM;
        // Each slot's list link and SGE pointer are fixed: a post of n WRs ends the list at slot n - 1 for its call.
        for (int i = 0; i < sendCapacity; i++) {
            long at = i * WR_SIZE;
            long next = i + 1 < sendCapacity ? sendWrs.address() + at + WR_SIZE : 0L;
            sendWrs.set(JAVA_LONG, at + QpStructs.ibv_send_wr.next$off, next);
            sendWrs.set(JAVA_LONG, at + QpStructs.ibv_send_wr.sg_list$off, sendSges.address() + i * sgeStride);
        }
        this.recvPoster = srq == null
                ? new RecvPoster(scratch, "ibv_post_recv", init.cap().maxRecvWr(), init.cap().maxRecvSge())
                : null;
        this.session = qpx.address() == 0 ? null : new FfmWrSession(this, qpx, init, scratch);
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

    FfmContext context() {
        return ctx;
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
        return state;
    }

    /** Whether the send queue accepts work in the state last seen (RTS, SQD, SQE or ERR). */
    boolean sendQueueReady() {
        QpState s = state;
        return s == QpState.RTS || s == QpState.SQD || s == QpState.SQE || s == QpState.ERR;
    }

    @Override
    public QpInitAttributes initAttributes() {
        checkOpen();
        return init;
    }

    @Override
    public void modify(QpAttributes attributes) {
        checkOpen();
        Arguments.modifyAttributes(attributes);
        if (attributes.has(QpAttrMask.AV)) {
            ctx.checkPort(attributes.ahAttr().portNum());
        }
        if (attributes.has(QpAttrMask.PORT)) {
            ctx.checkPort(attributes.port());
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(ibv_qp_attr.LAYOUT);
            NativeAttrs.writeQpAttr(attr, attributes);
            int rc = Ibverbs.ibv_modify_qp(qp, attr, attributes.mask());
            if (rc != 0) {
                throw new VerbsException("ibv_modify_qp", Ibverbs.errnoOf(rc),
                        state + " -> " + attributes.state() + ", mask " + QpAttrMask.toString(attributes.mask()));
            }
        }
        if (attributes.has(QpAttrMask.STATE)) {
            state = attributes.state();
        }
    }

    @Override
    public QpAttributes query() {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(ibv_qp_attr.LAYOUT);
            MemorySegment initAttr = a.allocate(256, 8);
            int rc = Ibverbs.ibv_query_qp(qp, attr, QUERY_MASK, initAttr);
            if (rc != 0) {
                throw new VerbsException("ibv_query_qp", Ibverbs.errnoOf(rc), null);
            }
            QpAttributes q = NativeAttrs.readQpAttr(attr, QUERY_MASK);
            state = q.state();
            return q;
        }
    }

    private void checkReceive() {
        checkOpen();
        if (recvPoster == null) {
            throw new IllegalStateException("this QP receives through its SRQ; post there");
        }
        if (state == QpState.RESET) {
            // A QP takes receives from INIT on (IBA 10.3.1); not every provider checks it.
            throw new PostRecvException("ibv_post_recv", Errno.EINVAL, 0, "the QP is in RESET");
        }
    }

    @Override
    public void postRecv(RecvWr wr) {
        checkReceive();
        synchronized (recvLock) {
            checkOpen();
            recvPoster.post(ctx.postRecv, qp, wr);
        }
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        checkReceive();
        synchronized (recvLock) {
            checkOpen();
            recvPoster.post(ctx.postRecv, qp, wrs);
        }
    }

    /** Refuses a send-queue verb inside this thread's open WR session (see AbstractWrSession). */
    private void checkNotInSession() {
        if (session != null) {
            session.qpSide().checkNotOpenInThisThread();
        }
    }

    @Override
    public void postSend(SendWr wr) {
        checkOpen();
        Objects.requireNonNull(wr, "wr");
        checkNotInSession();
        synchronized (sendLock) {
            checkOpen();
            checkOpen();
            int err = sendQueueReady() ? write(0, wr) : Errno.EINVAL;
            if (err != 0) {
                throw new PostSendException(err, 0, reason(err, wr));
            }
            callPostSend(0, 1);
            if (wr.opcode() == WrOpcode.BIND_MW) {
                recordBind(wr);
            }
        }
    }

    @Override
    public void postSend(List<SendWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        int size = wrs.size();
        for (int i = 0; i < size; i++) {
            Objects.requireNonNull(wrs.get(i), "wrs element");
        }
        checkNotInSession();
        synchronized (sendLock) {
            checkOpen();
            checkOpen();
            // The QP's state is read once per post: a modify racing with it takes effect before or after.
            boolean ready = sendQueueReady();
            for (int base = 0; base < size; base += sendCapacity) {
                int n = Math.min(sendCapacity, size - base);
                int limit = n;
                int err = 0;
                boolean binds = false;
                for (int i = 0; i < n; i++) {
                    SendWr wr = wrs.get(base + i);
                    err = ready ? write(i, wr) : Errno.EINVAL;
                    if (err != 0) {
                        limit = i;
                        break;
                    }
                    binds |= wr.opcode() == WrOpcode.BIND_MW;
                }
                if (limit > 0) {
                    try {
                        callPostSend(base, limit);
                    } catch (PostSendException e) {
                        if (binds) {
                            for (int i = 0; i < e.badWrIndex() - base; i++) {
                                recordBind(wrs.get(base + i));
                            }
                        }
                        throw e;
                    }
                    if (binds) {
                        for (int i = 0; i < limit; i++) {
                            recordBind(wrs.get(base + i));
                        }
                    }
                }
                if (err != 0) {
                    throw new PostSendException(err, base + limit, reason(err, wrs.get(base + limit)));
                }
            }
        }
    }

    /** After a BIND_MW WR was posted: the window's rkey is the one it binds (see NativeMemoryWindow.boundByWr). */
    private static void recordBind(SendWr wr) {
        if (wr.opcode() == WrOpcode.BIND_MW && wr.bindMwWindow() instanceof NativeMemoryWindow mw) {
            mw.boundByWr(wr.bindMwRkey(), wr.bindMwInfo());
        }
    }

    private String reason(int err, SendWr wr) {
        if (!sendQueueReady()) {
            return "the QP is in " + state + "; sends need RTS, SQD, SQE or ERR";
        }
        if (!wr.opcode().isValidFor(type)) {
            return wr.opcode() + " is not valid on a " + type + " QP";
        }
        if ((wr.sendFlags() & SendFlags.IP_CSUM) != 0 && !ctx.ipCsum) {
            return "IP_CSUM needs a device with checksum offload";
        }
        if (wr.numSge() > sgePerWr) {
            return wr.numSge() + " SGEs, the QP takes " + sgePerWr;
        }
        String unreadable = Arguments.inlineData(wr, pd.regions());
        if (unreadable != null) {
            return unreadable;
        }
        return "WR " + wr + " cannot be posted (" + Errno.name(err) + ")";
    }

    /**
     * Posts the first {@code n} WRs of the array: slot {@code n - 1} ends the list for the call and is linked to
     * its successor again after it. The array and the bad-WR word are passed as addresses: they are this QP's
     * scratch memory, freed only after the destroy verb, which waits for the send lock held here.
     */
    private void callPostSend(int base, int n) {
        long wrs = sendWrs.address();
        long last = (n - 1) * WR_SIZE + QpStructs.ibv_send_wr.next$off;
        sendWrs.set(JAVA_LONG, last, 0L);
        badWr.set(JAVA_LONG, 0, 0L);
        int rc;
        try {
            rc = InlineOps.post_send(ctx.postSend, qp, wrs, badWr.address());
        } finally {
            if (n < sendCapacity) {
                sendWrs.set(JAVA_LONG, last, wrs + n * WR_SIZE);
            }
            Reference.reachabilityFence(this);
        }
        if (rc != 0) {
            long bad = badWr.get(JAVA_LONG, 0);
            int index = bad >= wrs && bad < wrs + sendWrs.byteSize() ? (int) ((bad - wrs) / WR_SIZE) : 0;
            throw new PostSendException(rc < 0 ? -rc : rc, base + index, null);
        }
    }

    /**
     * Writes WR {@code i} of the native array; returns an errno when it cannot be posted, else 0. The slot's
     * {@code next} and {@code sg_list} are fixed at creation; a field an opcode does not read is left as it was.
     * Kept small enough for the JIT to inline into the posting loop: RDMA WRITE, RDMA READ and SEND on an RC or
     * UC QP are written here, every other opcode and QP type in {@link #writeOther}.
     */
    private int write(int i, SendWr wr) {
        Sge[] sges = wr.sgList();
        int num = wr.numSge();
        if (num > sgePerWr) {
            Arguments.sges(sges, num, "sgList");
            return Errno.EINVAL;
        }
        writeSges(i * sgeStride, sges, num);
        WrOpcode op = wr.opcode();
        int flags = wr.sendFlags();
        if (!op.isValidFor(type) || (flags & ~sendFlagsAllowed) != 0
                || (flags & SendFlags.INLINE) != 0 && Arguments.inlineData(wr, pd.regions()) != null) {
            return Errno.EINVAL;
        }
        MemorySegment w = sendWrs;
        long at = i * WR_SIZE;
        w.set(JAVA_LONG_UNALIGNED, at + QpStructs.ibv_send_wr.wr_id$off, wr.wrId());
        w.set(JAVA_INT_UNALIGNED, at + QpStructs.ibv_send_wr.num_sge$off, num);
        w.set(JAVA_INT_UNALIGNED, at + QpStructs.ibv_send_wr.opcode$off, op.value());
        w.set(JAVA_INT_UNALIGNED, at + QpStructs.ibv_send_wr.send_flags$off, flags);
        if (connected && (op == WrOpcode.RDMA_WRITE || op == WrOpcode.RDMA_READ)) {
            w.set(JAVA_LONG_UNALIGNED, at + QpStructs.ibv_send_wr.wr$rdma$remote_addr$off, wr.remoteAddr());
            w.set(JAVA_INT_UNALIGNED, at + QpStructs.ibv_send_wr.wr$rdma$rkey$off, wr.rkey());
            return 0;
        }
        return connected && op == WrOpcode.SEND ? 0 : writeOther(at, op, wr);
    }

    /**
     * Copies a WR's gather list into its slot's SGEs ({@code num} is within the slot), checking each entry for
     * null as {@link Arguments#sges} does: the WR is written but not yet posted when that throws.
     */
    private void writeSges(long sgeAt, Sge[] sges, int num) {
        Objects.requireNonNull(sges, "sgList");
        MemorySegment sg = sendSges;
        for (int k = 0; k < num; k++) {
            Sge s = sges[k];
            if (s == null) {
                throw Arguments.nullEntry("sgList", k);
            }
            long o = sgeAt + k * SGE_SIZE;
            sg.set(JAVA_LONG_UNALIGNED, o + MemoryStructs.ibv_sge.addr$off, s.addr());
            sg.set(JAVA_INT_UNALIGNED, o + MemoryStructs.ibv_sge.length$off, s.length());
            sg.set(JAVA_INT_UNALIGNED, o + MemoryStructs.ibv_sge.lkey$off, s.lkey());
        }
    }

    /** The fields of the opcodes other than RDMA WRITE, RDMA READ and SEND, and of UD and XRC QPs. */
    private int writeOther(long at, WrOpcode op, SendWr wr) {
        MemorySegment w = sendWrs;
        switch (op) {
            case SEND_WITH_IMM, RDMA_WRITE_WITH_IMM -> ibv_send_wr.imm_data$vh.set(w, at, Integer.reverseBytes(wr.immData()));
            case SEND_WITH_INV, LOCAL_INV -> ibv_send_wr.imm_data$vh.set(w, at, wr.invalidateRkey());
            default -> { }
        }
        if (type == QpType.UD) {
            if (!(wr.ah() instanceof NativeAddressHandle ah) || ah.isClosed() || ah.nativeContext() != ctx) {
                return Errno.EINVAL;
            }
            w.set(JAVA_LONG, at + QpStructs.ibv_send_wr.wr$ud$ah$off, ah.handle());
            ibv_send_wr.ud_remote_qpn$vh.set(w, at, wr.remoteQpn());
            ibv_send_wr.ud_remote_qkey$vh.set(w, at, wr.remoteQkey());
        } else if (op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD) {
            ibv_send_wr.atomic_remote_addr$vh.set(w, at, wr.remoteAddr());
            ibv_send_wr.atomic_compare_add$vh.set(w, at, wr.compareAdd());
            ibv_send_wr.atomic_swap$vh.set(w, at, wr.swap());
            ibv_send_wr.atomic_rkey$vh.set(w, at, wr.rkey());
        } else {
            ibv_send_wr.rdma_remote_addr$vh.set(w, at, wr.remoteAddr());
            ibv_send_wr.rdma_rkey$vh.set(w, at, wr.rkey());
        }
        if (type == QpType.XRC_SEND) {
            ibv_send_wr.xrc_remote_srqn$vh.set(w, at, wr.remoteSrqn());
        }
        if (op == WrOpcode.BIND_MW) {
            return writeBind(at, wr);
        }
        if (op == WrOpcode.TSO) {
            MemorySegment hdr = wr.tsoHdr();
            if (hdr == null || !hdr.isNative() || hdr.byteSize() > 0xffff || !hdr.scope().isAlive()) {
                return Errno.EINVAL;
            }
            w.set(JAVA_LONG, at + QpStructs.ibv_send_wr.tso$hdr$off, hdr.address());
            ibv_send_wr.tso_hdr_sz$vh.set(w, at, (short) hdr.byteSize());
            ibv_send_wr.tso_mss$vh.set(w, at, (short) wr.mss());
        }
        return 0;
    }

    private int writeBind(long at, SendWr wr) {
        MemorySegment w = sendWrs;
        MwBindInfo info = wr.bindMwInfo();
        if (!(wr.bindMwWindow() instanceof NativeMemoryWindow mw) || mw.isClosed() || mw.nativeContext() != ctx
                || info == null || !(info.mr() instanceof NativeMemoryRegion mr) || mr.isClosed()
                || mr.nativeContext() != ctx) {
            return Errno.EINVAL;
        }
        if (!mw.keepsIndex(wr.bindMwRkey())) {
            return Errno.EINVAL;
        }
        w.set(JAVA_LONG, at + QpStructs.ibv_send_wr.bind_mw$mw$off, mw.handle());
        ibv_send_wr.bind_mw_rkey$vh.set(w, at, wr.bindMwRkey());
        long bi = at + QpStructs.ibv_send_wr.bind_mw$bind_info$off;
        w.set(JAVA_LONG, bi + MemoryStructs.ibv_mw_bind_info.mr$off, mr.handle());
        ibv_mw_bind_info.addr$vh.set(w, bi, info.addr());
        ibv_mw_bind_info.length$vh.set(w, bi, info.length());
        ibv_mw_bind_info.mw_access_flags$vh.set(w, bi, info.mwAccessFlags());
        return 0;
    }

    @Override
    public WrSession startWr() {
        checkOpen();
        if (session == null) {
            throw new IllegalStateException("this QP was created without sendOps; it has no WR session");
        }
        session.qpSide().open();
        return session;
    }

    @Override
    public int bindMw(MemoryWindow mw, long wrId, int sendFlags, MwBindInfo bindInfo) {
        checkOpen();
        checkNotInSession();
        Objects.requireNonNull(bindInfo, "bindInfo");
        if (!(mw instanceof NativeMemoryWindow w) || !(w.nativeContext() instanceof FfmContext)) {
            throw new IllegalArgumentException("the memory window is not from the ffm provider");
        }
        checkSibling(w, "the memory window");
        if (w.type() != MwType.TYPE_1) {
            throw new IllegalArgumentException("bindMw binds type 1 windows; bind a type 2 window in a WrSession");
        }
        if (!(bindInfo.mr() instanceof NativeMemoryRegion mr) || !(mr.nativeContext() instanceof FfmContext)) {
            throw new IllegalArgumentException("the memory region is not from the ffm provider");
        }
        checkSibling(mr, "the memory region");
        if (mr.pd() != w.pd()) {
            throw new VerbsException("ibv_bind_mw", Errno.EPERM, "the window and the region are in different PDs");
        }
        String outside = Arguments.bindRange(bindInfo);
        if (outside != null) {
            throw new VerbsException("ibv_bind_mw", Errno.EINVAL, outside);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment bind = a.allocate(ibv_mw_bind.LAYOUT);
            ibv_mw_bind.wr_id$vh.set(bind, 0L, wrId);
            ibv_mw_bind.send_flags$vh.set(bind, 0L, sendFlags);
            long bi = MemoryStructs.ibv_mw_bind.bind_info$off;
            ibv_mw_bind_info.mr$vh.set(bind, bi, MemorySegment.ofAddress(mr.handle()));
            ibv_mw_bind_info.addr$vh.set(bind, bi, bindInfo.addr());
            ibv_mw_bind_info.length$vh.set(bind, bi, bindInfo.length());
            ibv_mw_bind_info.mw_access_flags$vh.set(bind, bi, bindInfo.mwAccessFlags());
            int rc;
            synchronized (sendLock) {
                checkOpen();
                rc = InlineOps.bind_mw(ctx.bindMw, qp, MemorySegment.ofAddress(w.handle()), bind);
            }
            if (rc != 0) {
                throw new VerbsException("ibv_bind_mw", Ibverbs.errnoOf(rc), null);
            }
            w.boundTo(bindInfo.length() > 0 ? mr : null);
            return w.rkey();
        }
    }

    @Override
    public int queryDataInOrder(WrOpcode op, int flags) {
        checkOpen();
        if (!Arguments.dataInOrderQuery(op, flags)) {
            return 0;
        }
        if (ctx.rdmaCoreVersion >= 50) {
            return Ibverbs.ibv_query_qp_data_in_order(qp, op.value(), flags);
        }
        // rdma-core before 50 accepts only flags 0 and answers 1 for WHOLE_MSG; RETURN_CAPS's answer
        // has WHOLE_MSG at bit 0, so the same call gives both.
        int wholeMsg = Ibverbs.ibv_query_qp_data_in_order(qp, op.value(), 0) == 1 ? 1 : 0;
        return flags == DataInOrder.RETURN_CAPS ? (wholeMsg != 0 ? DataInOrder.WHOLE_MSG.bit() : 0) : wholeMsg;
    }

    @Override
    protected AbstractWrSession wrSession() {
        return session;
    }

    @Override
    protected int destroy() {
        // Both posting locks: no post runs inside the destroy verb, and none starts after it.
        synchronized (sendLock) {
            synchronized (recvLock) {
                int rc = Ibverbs.ibv_destroy_qp(qp);
                if (rc == 0) {
                    // Still under both posting locks: a post that waited for them finds the QP closed.
                    markClosed();
                }
                return Ibverbs.failure(rc);
            }
        }
    }

    @Override
    protected void afterDestroy() {
        ctx.qps.remove(qp.address());
        scratch.free();
        if (parentDomain.address() != 0) {
            Ibverbs.ibv_dealloc_pd(parentDomain);
        }
    }

    @Override
    public String toString() {
        return "FfmQueuePair[" + type + ", qpn=0x" + Integer.toHexString(qpNum) + ", " + state + "]";
    }
}
