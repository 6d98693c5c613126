package org.verbs4j.provider.jnr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.verbs4j.AddressHandle;
import org.verbs4j.Errno;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.provider.jnr.internal.IbvMwBindInfo;
import org.verbs4j.provider.jnr.internal.IbvQpEx;
import org.verbs4j.provider.jnr.internal.IbvSge;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;

/**
 * A QP's WR session over the {@code struct ibv_qp_ex} function pointers ({@code ibv_wr_post(3)}).
 *
 * <p>The rules of the seed are checked here, in Java, as each call arrives: an opcode not in
 * {@code sendOps}, a setter with no WR, a second or missing DATA setter, inline data where it is not
 * allowed or beyond the granted {@code max_inline_data}, too many SGEs, a missing {@code setUdAddr} on UD.
 * The first such fault is remembered and nothing more reaches the device until {@link #complete()},
 * which then aborts the batch natively and fails with the errno. Provider libraries do not all check
 * these rules, and an opcode that was not requested may have no function behind it at all.
 *
 * <p>Builders and setters allocate nothing: they write the reused native scratch memory of this session
 * and call the function pointers through jffi.
 */
final class JnrWrSession implements WrSession {
    private final JnrQueuePair qp;
    private final long qpx;
    private final QpType type;
    private final int sendOpsMask;
    private final int maxInline;
    private final int maxSge;
    private final ReentrantLock lock;

    private final long atomicCmpSwp;
    private final long atomicFetchAdd;
    private final long atomicWrite;
    private final long bindMw;
    private final long localInv;
    private final long rdmaRead;
    private final long rdmaWrite;
    private final long rdmaWriteImm;
    private final long send;
    private final long sendImm;
    private final long sendInv;
    private final long sendTso;
    private final long setUdAddr;
    private final long setXrcSrqn;
    private final long setInlineData;
    private final long setSge;
    private final long setSgeList;
    private final long wrStart;
    private final long wrComplete;
    private final long wrAbort;

    /**
     * Native scratch: SGE list, MW bind info, the atomic-write operand, inline bytes. The
     * garbage collector frees it with the session, so a QP that is never closed leaks nothing.
     */
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment sgeList;
    private final MemorySegment bindInfo;
    private final MemorySegment atomicOperand;
    private final MemorySegment inline;
    private MemorySegment tsoHeader;

    private volatile boolean active;
    /** The first fault of this batch as an errno, or 0. */
    private int fault;
    private String faultDetail;
    /** The current WR's opcode, or null before the first builder. */
    private WrOpcode current;
    private boolean dataSet;
    private boolean udSet;
    private boolean xrcSet;
    /** Builders called in this batch. */
    private int built;
    /** wr_id and wr_flags as the application last set them. */
    private long curWrId;
    private int curWrFlags;
    /**
     * A builder of an opcode that may carry inline data, held back until its DATA setter shows whether the
     * data is inline: rxe (rdma-core 44) marks a WQE inline only by IBV_SEND_INLINE in wr_flags, not by
     * ibv_wr_set_inline_data, so the flag is added here for an inline WR. 0 when none is pending.
     */
    private long pendingFn;
    private int pendingShape;
    private long pendingWrId;
    private int pendingFlags;
    private int pendingA;
    private long pendingB;
    private int pendingC;
    /** A setUdAddr made while a builder is held back, issued right after it; 0 when none. */
    private long pendingAh;
    private int pendingRemoteQpn;
    private int pendingRemoteQkey;
    /** The type 2 binds of this batch, recorded on their windows once complete() succeeds. */
    private final JnrMemoryWindow[] binds = new JnrMemoryWindow[16];
    private final JnrMemoryRegion[] bindRegions = new JnrMemoryRegion[16];
    private final int[] bindRkeys = new int[16];
    private int bindCount;
    private static final int SHAPE_P = 1;
    private static final int SHAPE_U32 = 2;
    private static final int SHAPE_U32_U64 = 3;
    private static final int SHAPE_U32_U64_U32 = 4;

    JnrWrSession(JnrQueuePair qp, long qpx, Set<WrOpcode> sendOps, QpCapabilities cap, ReentrantLock lock) {
        this.qp = qp;
        this.qpx = qpx;
        this.type = qp.type();
        this.sendOpsMask = (int) WrOpcode.sendOpsFlags(sendOps);
        this.maxInline = cap.maxInlineData();
        this.maxSge = Math.max(cap.maxSendSge(), 1);
        this.lock = lock;
        atomicCmpSwp = InlineVerbs.fn(qpx, IbvQpEx.wr_atomic_cmp_swp$OFFSET);
        atomicFetchAdd = InlineVerbs.fn(qpx, IbvQpEx.wr_atomic_fetch_add$OFFSET);
        atomicWrite = InlineVerbs.fn(qpx, IbvQpEx.wr_atomic_write$OFFSET);
        bindMw = InlineVerbs.fn(qpx, IbvQpEx.wr_bind_mw$OFFSET);
        localInv = InlineVerbs.fn(qpx, IbvQpEx.wr_local_inv$OFFSET);
        rdmaRead = InlineVerbs.fn(qpx, IbvQpEx.wr_rdma_read$OFFSET);
        rdmaWrite = InlineVerbs.fn(qpx, IbvQpEx.wr_rdma_write$OFFSET);
        rdmaWriteImm = InlineVerbs.fn(qpx, IbvQpEx.wr_rdma_write_imm$OFFSET);
        send = InlineVerbs.fn(qpx, IbvQpEx.wr_send$OFFSET);
        sendImm = InlineVerbs.fn(qpx, IbvQpEx.wr_send_imm$OFFSET);
        sendInv = InlineVerbs.fn(qpx, IbvQpEx.wr_send_inv$OFFSET);
        sendTso = InlineVerbs.fn(qpx, IbvQpEx.wr_send_tso$OFFSET);
        setUdAddr = InlineVerbs.fn(qpx, IbvQpEx.wr_set_ud_addr$OFFSET);
        setXrcSrqn = InlineVerbs.fn(qpx, IbvQpEx.wr_set_xrc_srqn$OFFSET);
        setInlineData = InlineVerbs.fn(qpx, IbvQpEx.wr_set_inline_data$OFFSET);
        setSge = InlineVerbs.fn(qpx, IbvQpEx.wr_set_sge$OFFSET);
        setSgeList = InlineVerbs.fn(qpx, IbvQpEx.wr_set_sge_list$OFFSET);
        wrStart = InlineVerbs.fn(qpx, IbvQpEx.wr_start$OFFSET);
        wrComplete = InlineVerbs.fn(qpx, IbvQpEx.wr_complete$OFFSET);
        wrAbort = InlineVerbs.fn(qpx, IbvQpEx.wr_abort$OFFSET);
        sgeList = arena.allocate(IbvSge.SIZEOF * maxSge, 8);
        bindInfo = arena.allocate(IbvMwBindInfo.SIZEOF, 8);
        atomicOperand = arena.allocate(8, 8);
        inline = arena.allocate(Math.max(maxInline, 8), 8);
    }

    /** The name of the first requested builder whose function pointer is missing, or null. */
    static String missingOps(long qpx, Set<WrOpcode> ops) {
        if (qpx == 0) {
            return "ibv_qp_ex";
        }
        if (InlineVerbs.fn(qpx, IbvQpEx.wr_start$OFFSET) == 0 || InlineVerbs.fn(qpx, IbvQpEx.wr_complete$OFFSET) == 0
                || InlineVerbs.fn(qpx, IbvQpEx.wr_abort$OFFSET) == 0) {
            return "wr_start/wr_complete/wr_abort";
        }
        for (WrOpcode op : ops) {
            long off = switch (op) {
                case RDMA_WRITE -> IbvQpEx.wr_rdma_write$OFFSET;
                case RDMA_WRITE_WITH_IMM -> IbvQpEx.wr_rdma_write_imm$OFFSET;
                case SEND -> IbvQpEx.wr_send$OFFSET;
                case SEND_WITH_IMM -> IbvQpEx.wr_send_imm$OFFSET;
                case RDMA_READ -> IbvQpEx.wr_rdma_read$OFFSET;
                case ATOMIC_CMP_AND_SWP -> IbvQpEx.wr_atomic_cmp_swp$OFFSET;
                case ATOMIC_FETCH_AND_ADD -> IbvQpEx.wr_atomic_fetch_add$OFFSET;
                case LOCAL_INV -> IbvQpEx.wr_local_inv$OFFSET;
                case BIND_MW -> IbvQpEx.wr_bind_mw$OFFSET;
                case SEND_WITH_INV -> IbvQpEx.wr_send_inv$OFFSET;
                case TSO -> IbvQpEx.wr_send_tso$OFFSET;
                case ATOMIC_WRITE -> IbvQpEx.wr_atomic_write$OFFSET;
                case FLUSH -> -1;
            };
            if (off < 0 || InlineVerbs.fn(qpx, off) == 0) {
                return "wr_" + op.name().toLowerCase(java.util.Locale.ROOT);
            }
        }
        return null;
    }

    void start() {
        if (lock != null) {
            if (lock.isHeldByCurrentThread()) {
                throw new IllegalStateException("this thread already has the WR session of QP " + qp.qpNum() + " open");
            }
            lock.lock();
        } else if (active) {
            throw new IllegalStateException("the WR session of QP " + qp.qpNum() + " is already open");
        }
        try {
            qp.checkOpen();
        } catch (IllegalStateException e) {
            if (lock != null) {
                lock.unlock();
            }
            throw e;
        }
        fault = 0;
        faultDetail = null;
        current = null;
        dataSet = false;
        udSet = false;
        xrcSet = false;
        built = 0;
        bindCount = 0;
        pendingFn = 0;
        curWrId = NativeMemory.getLong(qpx + IbvQpEx.wr_id$OFFSET);
        curWrFlags = NativeMemory.getInt(qpx + IbvQpEx.wr_flags$OFFSET);
        active = true;
        InlineVerbs.wrP(wrStart, qpx);
    }

    private void end() {
        active = false;
        if (lock != null) {
            lock.unlock();
        }
    }

    @Override
    public QueuePair qp() {
        return qp;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    private void checkActive() {
        if (!active) {
            throw new IllegalStateException("the WR session is not open; call QueuePair.startWr() first");
        }
    }

    private void fail(int errno, String detail) {
        if (fault == 0) {
            fault = errno;
            faultDetail = detail;
        }
    }

    @Override
    public void wrId(long wrId) {
        checkActive();
        curWrId = wrId;
        NativeMemory.putLong(qpx + IbvQpEx.wr_id$OFFSET, wrId);
    }

    @Override
    public void wrFlags(int flags) {
        checkActive();
        curWrFlags = flags;
        NativeMemory.putInt(qpx + IbvQpEx.wr_flags$OFFSET, flags);
    }

    /** Closes the previous WR and opens one of {@code op}; false if nothing should reach the device. */
    private boolean begin(WrOpcode op) {
        checkActive();
        issuePending(false);
        finishCurrent();
        current = op;
        built++;
        dataSet = false;
        udSet = false;
        xrcSet = false;
        if ((sendOpsMask & op.sendOpsFlag()) == 0) {
            fail(Errno.EINVAL, op + " was not requested in the QP's sendOps");
        }
        return fault == 0;
    }

    private void finishCurrent() {
        WrOpcode op = current;
        if (op == null) {
            return;
        }
        if (needsData(op) && !dataSet) {
            fail(Errno.EINVAL, op + " WR has no DATA setter (setSge, setSgeList, setInlineData, setInlineDataList)");
        }
        if (type == QpType.UD && !udSet) {
            fail(Errno.EINVAL, "a UD WR needs setUdAddr");
        }
        if (type == QpType.XRC_SEND && !xrcSet) {
            fail(Errno.EINVAL, "an XRC_SEND WR needs setXrcSrqn");
        }
    }

    private static boolean needsData(WrOpcode op) {
        return op.carriesData() && op != WrOpcode.ATOMIC_WRITE;
    }

    /** Holds back a builder of an inline-capable opcode with the wr_id and wr_flags it takes now. */
    private void defer(long fn, int shape, int a, long b, int c) {
        pendingFn = fn;
        pendingShape = shape;
        pendingWrId = curWrId;
        pendingFlags = curWrFlags;
        pendingA = a;
        pendingB = b;
        pendingC = c;
        pendingAh = 0;
    }

    /** Calls the held-back builder, with IBV_SEND_INLINE added when its data is inline. */
    private void issuePending(boolean inlineData) {
        long fn = pendingFn;
        if (fn == 0) {
            return;
        }
        pendingFn = 0;
        if (fault != 0) {
            return;
        }
        NativeMemory.putLong(qpx + IbvQpEx.wr_id$OFFSET, pendingWrId);
        NativeMemory.putInt(qpx + IbvQpEx.wr_flags$OFFSET, pendingFlags | (inlineData ? SendFlags.INLINE : 0));
        switch (pendingShape) {
            case SHAPE_P -> InlineVerbs.wrP(fn, qpx);
            case SHAPE_U32 -> InlineVerbs.wrU32(fn, qpx, pendingA);
            case SHAPE_U32_U64 -> InlineVerbs.wrU32U64(fn, qpx, pendingA, pendingB);
            default -> InlineVerbs.wrU32U64U32(fn, qpx, pendingA, pendingB, pendingC);
        }
        NativeMemory.putLong(qpx + IbvQpEx.wr_id$OFFSET, curWrId);
        NativeMemory.putInt(qpx + IbvQpEx.wr_flags$OFFSET, curWrFlags);
        if (pendingAh != 0) {
            InlineVerbs.wrPU32U32(setUdAddr, qpx, pendingAh, pendingRemoteQpn, pendingRemoteQkey);
            pendingAh = 0;
        }
    }

    @Override
    public void atomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        if (begin(WrOpcode.ATOMIC_CMP_AND_SWP)) {
            InlineVerbs.wrU32U64U64U64(atomicCmpSwp, qpx, rkey, remoteAddr, compare, swap);
        }
    }

    @Override
    public void atomicFetchAdd(int rkey, long remoteAddr, long add) {
        if (begin(WrOpcode.ATOMIC_FETCH_AND_ADD)) {
            InlineVerbs.wrU32U64U64(atomicFetchAdd, qpx, rkey, remoteAddr, add);
        }
    }

    @Override
    public void atomicWrite(int rkey, long remoteAddr, long value) {
        if (begin(WrOpcode.ATOMIC_WRITE)) {
            atomicOperand.set(ValueLayout.JAVA_LONG, 0, value);
            InlineVerbs.wrU32U64P(atomicWrite, qpx, rkey, remoteAddr, atomicOperand.address());
        }
    }

    @Override
    public void bindMw(MemoryWindow mw, int rkey, MwBindInfo info) {
        Objects.requireNonNull(mw, "mw");
        Objects.requireNonNull(info, "bindInfo");
        if (!(mw instanceof JnrMemoryWindow w) || w.context != qp.context) {
            throw new IllegalArgumentException("the memory window belongs to another context or provider");
        }
        if (!(info.mr() instanceof JnrMemoryRegion mr) || mr.context != qp.context) {
            throw new IllegalArgumentException("the bind info's region belongs to another context or provider");
        }
        if (!begin(WrOpcode.BIND_MW)) {
            return;
        }
        if (w.isClosed() || mr.isClosed()) {
            fail(Errno.EINVAL, "the memory window or its region is closed");
            return;
        }
        if (w.type() != MwType.TYPE_2) {
            fail(Errno.EINVAL, "ibv_wr_bind_mw binds type 2 windows");
            return;
        }
        if (!w.keepsIndex(rkey)) {
            fail(Errno.EINVAL, "a type 2 bind may change only the low 8 bits (the key) of the window's rkey");
            return;
        }
        if (bindCount == binds.length) {
            fail(Errno.ENOMEM, "more than " + binds.length + " memory window binds in one session");
            return;
        }
        binds[bindCount] = w;
        bindRegions[bindCount] = info.length() == 0 ? null : mr;
        bindRkeys[bindCount++] = rkey;
        long b = bindInfo.address();
        NativeMemory.putAddress(b + IbvMwBindInfo.mr$OFFSET, mr.handle);
        NativeMemory.putLong(b + IbvMwBindInfo.addr$OFFSET, info.addr());
        NativeMemory.putLong(b + IbvMwBindInfo.length$OFFSET, info.length());
        NativeMemory.putInt(b + IbvMwBindInfo.mw_access_flags$OFFSET, info.mwAccessFlags());
        InlineVerbs.wrPU32P(bindMw, qpx, w.handle, rkey, b);
    }

    @Override
    public void localInv(int invalidateRkey) {
        if (begin(WrOpcode.LOCAL_INV)) {
            InlineVerbs.wrU32(localInv, qpx, invalidateRkey);
        }
    }

    @Override
    public void rdmaRead(int rkey, long remoteAddr) {
        if (begin(WrOpcode.RDMA_READ)) {
            InlineVerbs.wrU32U64(rdmaRead, qpx, rkey, remoteAddr);
        }
    }

    @Override
    public void rdmaWrite(int rkey, long remoteAddr) {
        if (begin(WrOpcode.RDMA_WRITE)) {
            defer(rdmaWrite, SHAPE_U32_U64, rkey, remoteAddr, 0);
        }
    }

    @Override
    public void rdmaWriteImm(int rkey, long remoteAddr, int immData) {
        if (begin(WrOpcode.RDMA_WRITE_WITH_IMM)) {
            defer(rdmaWriteImm, SHAPE_U32_U64_U32, rkey, remoteAddr, Integer.reverseBytes(immData));
        }
    }

    @Override
    public void send() {
        if (begin(WrOpcode.SEND)) {
            defer(send, SHAPE_P, 0, 0, 0);
        }
    }

    @Override
    public void sendImm(int immData) {
        if (begin(WrOpcode.SEND_WITH_IMM)) {
            defer(sendImm, SHAPE_U32, Integer.reverseBytes(immData), 0, 0);
        }
    }

    @Override
    public void sendInv(int invalidateRkey) {
        if (begin(WrOpcode.SEND_WITH_INV)) {
            defer(sendInv, SHAPE_U32, invalidateRkey, 0, 0);
        }
    }

    @Override
    public void sendTso(MemorySegment hdr, int mss) {
        Objects.requireNonNull(hdr, "hdr");
        if (hdr.byteSize() > 0xffff) {
            throw new IllegalArgumentException("a TSO header is at most 65535 bytes, not " + hdr.byteSize());
        }
        if (!begin(WrOpcode.TSO)) {
            return;
        }
        long addr;
        if (hdr.isNative()) {
            addr = hdr.address();
        } else {
            if (tsoHeader == null || tsoHeader.byteSize() < hdr.byteSize()) {
                tsoHeader = arena.allocate(Math.max(hdr.byteSize(), 64), 8);
            }
            MemorySegment.copy(hdr, 0, tsoHeader, 0, hdr.byteSize());
            addr = tsoHeader.address();
        }
        InlineVerbs.wrPU16U16(sendTso, qpx, addr, (int) hdr.byteSize(), mss);
    }

    @Override
    public void flush(int rkey, long remoteAddr, long len, int type, int level) {
        checkActive();
        issuePending(false);
        finishCurrent();
        current = null;
        fail(Errno.EOPNOTSUPP, "ibv_wr_flush needs rdma-core 45 or later");
    }

    /** Checks that a DATA setter may follow; false if nothing should reach the device. */
    private boolean data(boolean inlineData) {
        checkActive();
        if (fault != 0) {
            return false;
        }
        WrOpcode op = current;
        if (op == null) {
            fail(Errno.EINVAL, "a DATA setter before any builder");
            return false;
        }
        if (!needsData(op)) {
            fail(Errno.EINVAL, op + " takes no DATA setter");
            return false;
        }
        if (dataSet) {
            fail(Errno.EINVAL, "a second DATA setter on one " + op + " WR");
            return false;
        }
        if (inlineData && !op.allowsInline()) {
            fail(Errno.EINVAL, "inline data is valid only for SEND and RDMA WRITE, not " + op);
            return false;
        }
        dataSet = true;
        issuePending(inlineData);
        return fault == 0;
    }

    @Override
    public void setSge(int lkey, long addr, int length) {
        if (data(false)) {
            InlineVerbs.wrU32U64U32(setSge, qpx, lkey, addr, length);
        }
    }

    @Override
    public void setSgeList(Sge[] sges, int count) {
        Objects.requireNonNull(sges, "sges");
        if (count < 0 || count > sges.length) {
            throw new IllegalArgumentException("count " + count + " is outside the " + sges.length + "-entry list");
        }
        if (!data(false)) {
            return;
        }
        if (count > maxSge) {
            fail(Errno.EINVAL, count + " SGEs, but the QP was granted " + maxSge);
            return;
        }
        long base = sgeList.address();
        for (int i = 0; i < count; i++) {
            RecvWrArray.putSge(base + IbvSge.SIZEOF * i, Objects.requireNonNull(sges[i], "sges element"));
        }
        InlineVerbs.wrLP(setSgeList, qpx, count, base);
    }

    @Override
    public void setInlineData(MemorySegment data) {
        Objects.requireNonNull(data, "data");
        if (!data(true)) {
            return;
        }
        long len = data.byteSize();
        if (len > maxInline) {
            fail(Errno.EINVAL, len + " bytes of inline data, but the QP was granted " + maxInline);
            return;
        }
        long addr;
        if (data.isNative()) {
            addr = data.address();
        } else {
            MemorySegment.copy(data, 0, inline, 0, len);
            addr = inline.address();
        }
        InlineVerbs.wrPL(setInlineData, qpx, addr, len);
    }

    @Override
    public void setInlineDataList(MemorySegment[] buffers, int count) {
        Objects.requireNonNull(buffers, "buffers");
        if (count < 0 || count > buffers.length) {
            throw new IllegalArgumentException("count " + count + " is outside the " + buffers.length + "-entry list");
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += Objects.requireNonNull(buffers[i], "buffers element").byteSize();
        }
        if (!data(true)) {
            return;
        }
        if (total > maxInline) {
            fail(Errno.EINVAL, total + " bytes of inline data, but the QP was granted " + maxInline);
            return;
        }
        // The buffers are concatenated here and passed to wr_set_inline_data, which the seed defines as
        // equivalent: rxe's wr_set_inline_data_list in rdma-core 44 never adds up its total length and
        // so sends nothing.
        long at = 0;
        for (int i = 0; i < count; i++) {
            MemorySegment b = buffers[i];
            MemorySegment.copy(b, 0, inline, at, b.byteSize());
            at += b.byteSize();
        }
        InlineVerbs.wrPL(setInlineData, qpx, inline.address(), total);
    }

    @Override
    public void setUdAddr(AddressHandle ah, int remoteQpn, int remoteQkey) {
        Objects.requireNonNull(ah, "ah");
        if (!(ah instanceof JnrAddressHandle h) || h.context != qp.context) {
            throw new IllegalArgumentException("the address handle belongs to another context or provider");
        }
        checkActive();
        if (fault != 0 || type != QpType.UD) {
            return;
        }
        if (current == null) {
            fail(Errno.EINVAL, "setUdAddr before any builder");
            return;
        }
        if (h.isClosed()) {
            fail(Errno.EINVAL, "the address handle is closed");
            return;
        }
        udSet = true;
        if (pendingFn != 0) {
            pendingAh = h.handle;
            pendingRemoteQpn = remoteQpn;
            pendingRemoteQkey = remoteQkey;
            return;
        }
        InlineVerbs.wrPU32U32(setUdAddr, qpx, h.handle, remoteQpn, remoteQkey);
    }

    @Override
    public void setXrcSrqn(int remoteSrqn) {
        checkActive();
        if (fault != 0 || type != QpType.XRC_SEND) {
            return;
        }
        if (current == null) {
            fail(Errno.EINVAL, "setXrcSrqn before any builder");
            return;
        }
        xrcSet = true;
        issuePending(false);
        InlineVerbs.wrU32(setXrcSrqn, qpx, remoteSrqn);
    }

    @Override
    public void complete() {
        checkActive();
        issuePending(false);
        finishCurrent();
        try {
            if (fault == 0 && built > 0) {
                QpState s = qp.state();
                if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
                    fail(Errno.EINVAL, "the QP is in " + s + "; WRs are posted in RTS, SQD, SQE or ERR");
                }
            }
            if (fault != 0) {
                InlineVerbs.wrP(wrAbort, qpx);
                throw new VerbsException("ibv_wr_complete", fault, faultDetail);
            }
            int rc = InlineVerbs.callP(wrComplete, qpx);
            if (rc != 0) {
                throw new VerbsException("ibv_wr_complete", rc, null);
            }
            for (int i = 0; i < bindCount; i++) {
                binds[i].boundType2(bindRkeys[i], bindRegions[i]);
            }
        } finally {
            for (int i = 0; i < bindCount; i++) {
                binds[i] = null;
                bindRegions[i] = null;
            }
            bindCount = 0;
            end();
        }
    }

    @Override
    public void abort() {
        checkActive();
        pendingFn = 0;
        try {
            InlineVerbs.wrP(wrAbort, qpx);
        } finally {
            end();
        }
    }

    @Override
    public void close() {
        if (active && (lock == null || lock.isHeldByCurrentThread())) {
            abort();
        }
    }

    /** Before the QP is destroyed: abort this thread's open session, and wait out another thread's. */
    void blockForClose() {
        if (lock == null) {
            if (active) {
                abort();
            }
            return;
        }
        if (lock.isHeldByCurrentThread() && active) {
            abort();
        }
        lock.lock();
    }

    void unblockAfterClose() {
        if (lock != null && lock.isHeldByCurrentThread()) {
            lock.unlock();
        }
    }
}
