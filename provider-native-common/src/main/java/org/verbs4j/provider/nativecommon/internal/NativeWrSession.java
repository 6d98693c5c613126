package org.verbs4j.provider.nativecommon.internal;

import java.util.Locale;
import java.util.Set;
import org.verbs4j.Errno;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw_bind_info;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_ex;
import org.verbs4j.spi.support.AbstractWrSession;
import org.verbs4j.spi.support.PendingWr;
import org.verbs4j.spi.support.SendQueueLock;

/**
 * The WR session of one native QP ({@code ibv_wr_post(3)}), for ffm and jnr alike: it drives the function pointers
 * of the QP's {@code struct ibv_qp_ex}, read once at creation, through {@link IbverbsBinding}. The rules of the seed
 * are checked in {@link AbstractWrSession}; a WR reaches the provider library only whole and valid, so an opcode
 * that was not requested (whose pointer may be NULL) is never called.
 *
 * <p>Each WR is issued as builder, then {@code wr_set_ud_addr}/{@code wr_set_xrc_srqn}, then its DATA setter, with
 * {@code wr_id} and {@code wr_flags} written into the {@code ibv_qp_ex} just before the builder. An inline WR's
 * flags carry {@code IBV_SEND_INLINE}: librxe (rdma-core 44) marks a WQE inline only by that flag
 * (known-deviations.md D-009). Builders and setters allocate nothing: SGE lists, bind info and the atomic-write
 * operand go to native scratch memory the QP gives the session once, at creation.
 *
 * <p>Two flows, both of the shared state machine. On a device whose data path is user space
 * ({@link CriticalDataPath}: mlx5, efa and the benchmarks' null library) each builder and setter calls
 * the provider library at once, after its own checks, and a WR that misses a setter fails the batch at the next
 * builder or at {@code complete()}, which then calls {@code wr_abort}: those libraries take inline data by their
 * setter alone. Elsewhere (rxe, siw, unknown devices) each WR is issued whole at the next builder or at
 * {@code complete()} ({@link #emit}), because librxe marks a WQE inline only by {@code IBV_SEND_INLINE} in the
 * {@code wr_flags} its builder read, which the session can add only once it has seen the DATA setter.
 *
 * <p>Hot path: {@link #emit} is small enough to be inlined into the session's builders, and RDMA WRITE and SEND
 * with one SGE take a straight path; the other builders, the UD and XRC setters and the other DATA setters are
 * methods of their own. Only one {@link IbverbsBinding} is loaded per JVM, so its calls stay monomorphic.
 */
public final class NativeWrSession extends AbstractWrSession {
    private final IbverbsBinding binding;
    private final QueuePair qp;
    /** The QP when it is the shared native one (a test may give another), read without its monitor. */
    private final NativeQueuePair nativeQp;
    private final long qpx;
    private final int maxTsoHeader;
    private final boolean xrc;
    /** UD or XRC_SEND: each WR has an address setter after its builder. */
    private final boolean addressed;
    /** The {@code send_ops_flags} bits of requested opcodes whose builder pointer the library left NULL. */
    private final long missingOps;
    /** Whether {@code wr_start} and {@code wr_complete} are critical downcalls ({@link CriticalDataPath}). */
    private final boolean critical;

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
    private final long flush;
    private final long setUdAddr;
    private final long setXrcSrqn;
    private final long setInlineData;
    private final long setSge;
    private final long setSgeList;
    private final long wrStart;
    private final long wrComplete;
    private final long wrAbort;

    private final long sgeList;
    private final long bindInfo;
    private final long atomicOperand;

    /**
     * Reads the QP's {@code ibv_qp_ex} function pointers; the QP makes its session once, at creation.
     *
     * @param qp the session's QP; its {@link QueuePair#state()} tells whether the send queue can post
     * @param binding the binding of the QP's provider
     * @param qpx the QP's {@code struct ibv_qp_ex *}, not 0, alive as long as the QP
     * @param init the attributes the QP was granted: type, {@code send_ops_flags}, capabilities, TSO header limit
     * @param ipCsum whether the device offers {@code IBV_SEND_IP_CSUM}
     * @param scratch the address of native memory of at least {@link #scratchBytes} bytes, 8-byte aligned, that
     *     the QP owns and frees only after the QP is destroyed; no native code keeps a pointer into it once a
     *     builder or setter has returned
     * @param scratchBytes its size in bytes
     * @throws IllegalArgumentException if {@code scratch} is 0, unaligned or smaller than {@link #scratchBytes}
     */
    public NativeWrSession(QueuePair qp, IbverbsBinding binding, long qpx, QpInitAttributes init, boolean ipCsum,
            long scratch, long scratchBytes) {
        this(qp, binding, qpx, init, ipCsum, scratch, scratchBytes, new SendQueueLock(), false);
    }

    /**
     * Reads the QP's {@code ibv_qp_ex} function pointers, over the QP's send lock; the QP makes its session once,
     * at creation.
     *
     * @param qp the session's QP; its {@link QueuePair#state()} tells whether the send queue can post
     * @param binding the binding of the QP's provider
     * @param qpx the QP's {@code struct ibv_qp_ex *}, not 0, alive as long as the QP
     * @param init the attributes the QP was granted: type, {@code send_ops_flags}, capabilities, TSO header limit
     * @param ipCsum whether the device offers {@code IBV_SEND_IP_CSUM}
     * @param scratch the address of native memory of at least {@link #scratchBytes} bytes, 8-byte aligned, that
     *     the QP owns and frees only after the QP is destroyed; no native code keeps a pointer into it once a
     *     builder or setter has returned
     * @param scratchBytes its size in bytes
     * @param sendLock the lock under which the QP makes every other call into its send queue ({@code post_send},
     *     {@code bind_mw}); the session holds it while open, so the provider library's send-queue lock, which
     *     {@code wr_start} takes and {@code wr_complete} releases, is never contended
     * @param critical whether {@code wr_start} and {@code wr_complete} are critical downcalls: the QP's context
     *     allows it ({@link NativeContextSupport#criticalDataPath()}). Such a device's provider library also takes
     *     each builder and setter at once (see the class comment)
     * @throws IllegalArgumentException if {@code scratch} is 0, unaligned or smaller than {@link #scratchBytes}
     */
    public NativeWrSession(QueuePair qp, IbverbsBinding binding, long qpx, QpInitAttributes init, boolean ipCsum,
            long scratch, long scratchBytes, SendQueueLock sendLock, boolean critical) {
        super(qp, init.type(), init.sendOps(), init.cap().maxInlineData(), init.cap().maxSendSge(), ipCsum,
                sendLock, critical);
        this.critical = critical;
        this.binding = binding;
        this.qp = qp;
        this.nativeQp = qp instanceof NativeQueuePair n ? n : null;
        this.qpx = qpx;
        this.maxTsoHeader = init.maxTsoHeader();
        this.xrc = init.type() == QpType.XRC_SEND;
        this.addressed = xrc || init.type() == QpType.UD;
        atomicCmpSwp = fn(ibv_qp_ex.wr_atomic_cmp_swp$off);
        atomicFetchAdd = fn(ibv_qp_ex.wr_atomic_fetch_add$off);
        // The words of the builders newer than the oldest ibv_qp_ex are read only for a QP granted their opcode:
        // a library grants only the send_ops_flags whose builder its struct has (rdma-core 44 ends at
        // wr_atomic_write, 43 before it), so no version is needed and no word past the struct is read.
        atomicWrite = granted(init, WrOpcode.ATOMIC_WRITE);
        bindMw = fn(ibv_qp_ex.wr_bind_mw$off);
        localInv = fn(ibv_qp_ex.wr_local_inv$off);
        rdmaRead = fn(ibv_qp_ex.wr_rdma_read$off);
        rdmaWrite = fn(ibv_qp_ex.wr_rdma_write$off);
        rdmaWriteImm = fn(ibv_qp_ex.wr_rdma_write_imm$off);
        send = fn(ibv_qp_ex.wr_send$off);
        sendImm = fn(ibv_qp_ex.wr_send_imm$off);
        sendInv = fn(ibv_qp_ex.wr_send_inv$off);
        sendTso = fn(ibv_qp_ex.wr_send_tso$off);
        flush = granted(init, WrOpcode.FLUSH);
        setUdAddr = fn(ibv_qp_ex.wr_set_ud_addr$off);
        setXrcSrqn = fn(ibv_qp_ex.wr_set_xrc_srqn$off);
        setInlineData = fn(ibv_qp_ex.wr_set_inline_data$off);
        setSge = fn(ibv_qp_ex.wr_set_sge$off);
        setSgeList = fn(ibv_qp_ex.wr_set_sge_list$off);
        wrStart = fn(ibv_qp_ex.wr_start$off);
        wrComplete = fn(ibv_qp_ex.wr_complete$off);
        wrAbort = fn(ibv_qp_ex.wr_abort$off);
        long missing = 0;
        for (WrOpcode op : init.sendOps()) {
            if (fn(builderOffset(op)) == 0) {
                missing |= op.sendOpsFlag();
            }
        }
        this.missingOps = missing;
        if (scratch == 0 || scratchBytes < scratchBytes(init) || (scratch & 7) != 0) {
            throw new IllegalArgumentException("a WR session needs " + scratchBytes(init)
                    + " bytes of 8-byte aligned native scratch memory, not " + scratchBytes + " bytes at 0x"
                    + Long.toHexString(scratch));
        }
        atomicOperand = scratch;
        bindInfo = atomicOperand + 8;
        sgeList = bindInfo + align8(ibv_mw_bind_info.SIZEOF);
    }

    /**
     * The scratch memory a session of a QP needs: its SGE list, MW bind info and atomic-write operand.
     *
     * @param init the attributes the QP was granted
     * @return the size in bytes
     */
    public static long scratchBytes(QpInitAttributes init) {
        return 8 + align8(ibv_mw_bind_info.SIZEOF) + ibv_sge.SIZEOF * Math.max(1, init.cap().maxSendSge());
    }

    private static long align8(long n) {
        return (n + 7) & ~7L;
    }

    private long fn(long offset) {
        return binding.getLong(qpx + offset);
    }

    /** The builder of {@code op} if the QP was granted it, else 0 without reading the word. */
    private long granted(QpInitAttributes init, WrOpcode op) {
        return init.sendOps().contains(op) ? fn(builderOffset(op)) : 0;
    }

    /**
     * The first requested builder, or {@code wr_start}/{@code wr_complete}/{@code wr_abort}, whose function pointer
     * the provider library left NULL: for a QP that refuses such opcodes at creation.
     *
     * @param binding the binding of the QP's provider
     * @param qpx the QP's {@code struct ibv_qp_ex *}, or 0
     * @param ops the requested opcodes, which the library granted at creation: only their words are read
     * @return the missing pointer's name, or null if every one is there
     */
    public static String missingBuilder(IbverbsBinding binding, long qpx, Set<WrOpcode> ops) {
        if (qpx == 0) {
            return "ibv_qp_ex";
        }
        if (binding.getLong(qpx + ibv_qp_ex.wr_start$off) == 0
                || binding.getLong(qpx + ibv_qp_ex.wr_complete$off) == 0
                || binding.getLong(qpx + ibv_qp_ex.wr_abort$off) == 0) {
            return "wr_start/wr_complete/wr_abort";
        }
        for (WrOpcode op : ops) {
            long off = builderOffset(op);
            if (binding.getLong(qpx + off) == 0) {
                return "wr_" + op.name().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /**
     * The address setter a WR of this QP type is issued with ({@code wr_set_ud_addr} on UD, {@code wr_set_xrc_srqn}
     * on XRC_SEND), if the provider library left it NULL: every WR of such a QP calls it.
     *
     * @param binding the binding of the QP's provider
     * @param qpx the QP's {@code struct ibv_qp_ex *}, not 0
     * @param type the QP's type
     * @return the missing setter's name, or null if it is there or the type has none
     */
    public static String missingAddressSetter(IbverbsBinding binding, long qpx, QpType type) {
        return switch (type) {
            case UD -> binding.getLong(qpx + ibv_qp_ex.wr_set_ud_addr$off) == 0 ? "wr_set_ud_addr" : null;
            case XRC_SEND -> binding.getLong(qpx + ibv_qp_ex.wr_set_xrc_srqn$off) == 0 ? "wr_set_xrc_srqn" : null;
            default -> null;
        };
    }

    private static long builderOffset(WrOpcode op) {
        return switch (op) {
            case SEND -> ibv_qp_ex.wr_send$off;
            case SEND_WITH_IMM -> ibv_qp_ex.wr_send_imm$off;
            case SEND_WITH_INV -> ibv_qp_ex.wr_send_inv$off;
            case RDMA_WRITE -> ibv_qp_ex.wr_rdma_write$off;
            case RDMA_WRITE_WITH_IMM -> ibv_qp_ex.wr_rdma_write_imm$off;
            case RDMA_READ -> ibv_qp_ex.wr_rdma_read$off;
            case ATOMIC_CMP_AND_SWP -> ibv_qp_ex.wr_atomic_cmp_swp$off;
            case ATOMIC_FETCH_AND_ADD -> ibv_qp_ex.wr_atomic_fetch_add$off;
            case ATOMIC_WRITE -> ibv_qp_ex.wr_atomic_write$off;
            case LOCAL_INV -> ibv_qp_ex.wr_local_inv$off;
            case BIND_MW -> ibv_qp_ex.wr_bind_mw$off;
            case TSO -> ibv_qp_ex.wr_send_tso$off;
            case FLUSH -> ibv_qp_ex.wr_flush$off;
        };
    }

    /**
     * The session's QP side, for the provider's QueuePair alone.
     *
     * @return the calls the QP makes: open, the check before {@code postSend}, the lock around the destroy verb
     */
    public Control qpSide() {
        return control();
    }

    @Override
    protected boolean sendQueueReady() {
        if (nativeQp != null) {
            // The state field as libibverbs keeps it, without the QP's monitor that state() takes: the destroy
            // verb waits for an open session, so the QP is alive here.
            return nativeQp.sendQueueReady();
        }
        QpState s = qp.state();
        return s == QpState.RTS || s == QpState.SQD || s == QpState.SQE || s == QpState.ERR;
    }

    @Override
    protected void startBatch() {
        if (critical) {
            binding.wrStartCritical(wrStart, qpx);
        } else {
            binding.wrCall(wrStart, qpx);
        }
    }

    /**
     * Issues one whole WR (the flow of a device whose builders wait for their WR's end). Small enough to be inlined
     * into the session's builders: RDMA WRITE and SEND with one SGE take the straight path; the other builders, the
     * UD and XRC setters and the other DATA setters are methods of their own.
     */
    @Override
    protected void emit(PendingWr wr) {
        if (!builder(wr)) {
            return;
        }
        WrOpcode op = wr.opcode();
        if (addressed) {
            address(wr);
        }
        if (wr.dataKind() == PendingWr.DATA_SGE && op != WrOpcode.FLUSH) {
            binding.wrSetSge(setSge, qpx, wr.sgeLkey(0), wr.sgeAddr(0), wr.sgeLength(0));
        } else if (op != WrOpcode.FLUSH) {
            data(wr);
        }
    }

    @Override
    protected void emitBuilder(PendingWr wr) {
        builder(wr);
    }

    @Override
    protected void emitSge(int lkey, long addr, int length) {
        binding.wrSetSge(setSge, qpx, lkey, addr, length);
    }

    @Override
    protected void emitData(PendingWr wr) {
        data(wr);
    }

    @Override
    protected void emitAddress(PendingWr wr) {
        address(wr);
    }

    /**
     * Writes {@code wr_id} and {@code wr_flags} and calls the WR's builder: RDMA WRITE and SEND on the straight
     * path; false if the WR failed instead.
     */
    private boolean builder(PendingWr wr) {
        WrOpcode op = wr.opcode();
        if ((missingOps & op.sendOpsFlag()) != 0) {
            fail(Errno.EINVAL, "the provider library has no ibv_wr_* builder for " + op);
            return false;
        }
        binding.putLong(qpx + ibv_qp_ex.wr_id$off, wr.wrId());
        binding.putInt(qpx + ibv_qp_ex.wr_flags$off, wr.wrFlags());
        if (op == WrOpcode.RDMA_WRITE) {
            binding.wrRdma(rdmaWrite, qpx, wr.rkey(), wr.remoteAddr());
            return true;
        } else if (op == WrOpcode.SEND) {
            binding.wrBuild(send, qpx);
            return true;
        }
        return build(op, wr);
    }

    /** Calls the builder of an opcode other than RDMA WRITE and SEND; false if the WR failed instead. */
    private boolean build(WrOpcode op, PendingWr wr) {
        if (op == WrOpcode.TSO && wr.tsoHeaderLength() > maxTsoHeader) {
            fail(Errno.EINVAL, "a TSO header of " + wr.tsoHeaderLength() + " bytes exceeds max_tso_header "
                    + maxTsoHeader);
            return false;
        }
        switch (op) {
            case SEND -> binding.wrBuild(send, qpx);
            case SEND_WITH_IMM -> binding.wrU32(sendImm, qpx, Integer.reverseBytes(wr.immData()));
            case SEND_WITH_INV -> binding.wrU32(sendInv, qpx, wr.invalidateRkey());
            case RDMA_WRITE -> binding.wrRdma(rdmaWrite, qpx, wr.rkey(), wr.remoteAddr());
            case RDMA_WRITE_WITH_IMM -> binding.wrRdmaWriteImm(rdmaWriteImm, qpx, wr.rkey(), wr.remoteAddr(),
                    Integer.reverseBytes(wr.immData()));
            case RDMA_READ -> binding.wrRdma(rdmaRead, qpx, wr.rkey(), wr.remoteAddr());
            case ATOMIC_CMP_AND_SWP -> binding.wrAtomicCmpSwp(atomicCmpSwp, qpx, wr.rkey(), wr.remoteAddr(),
                    wr.compareAdd(), wr.swap());
            case ATOMIC_FETCH_AND_ADD -> binding.wrAtomicFetchAdd(atomicFetchAdd, qpx, wr.rkey(), wr.remoteAddr(),
                    wr.compareAdd());
            case ATOMIC_WRITE -> {
                binding.putLong(atomicOperand, wr.swap());
                binding.wrAtomicWrite(atomicWrite, qpx, wr.rkey(), wr.remoteAddr(), atomicOperand);
            }
            case LOCAL_INV -> binding.wrU32(localInv, qpx, wr.invalidateRkey());
            case BIND_MW -> bindMw(wr);
            case TSO -> binding.wrSendTso(sendTso, qpx, wr.tsoHeader().address(), wr.tsoHeaderLength(), wr.mss());
            case FLUSH -> binding.wrFlush(flush, qpx, wr.rkey(), wr.remoteAddr(), wr.flushLength(), wr.flushType(),
                    wr.flushLevel());
        }
        return true;
    }

    /**
     * {@code wr_bind_mw}, holding the window and the region until the library has read them (a close on another
     * thread waits; one that came first fails the batch with EINVAL, as a closed window at the builder does).
     */
    private void bindMw(PendingWr wr) {
        MwBindInfo info = wr.bindInfo();
        NativeMemoryWindow mw = (NativeMemoryWindow) wr.mw();
        NativeMemoryRegion mr = (NativeMemoryRegion) info.mr();
        if (!mw.enterCall()) {
            fail(Errno.EINVAL, "the memory window was closed before the bind reached the library");
            return;
        }
        try {
            if (!mr.enterCall()) {
                fail(Errno.EINVAL, "the bind's memory region was closed before the bind reached the library");
                return;
            }
            try {
                binding.putLong(bindInfo + ibv_mw_bind_info.mr$off, mr.handle());
                binding.putLong(bindInfo + ibv_mw_bind_info.addr$off, info.addr());
                binding.putLong(bindInfo + ibv_mw_bind_info.length$off, info.length());
                binding.putInt(bindInfo + ibv_mw_bind_info.mw_access_flags$off, info.mwAccessFlags());
                binding.wrBindMw(bindMw, qpx, mw.handle(), wr.bindRkey(), bindInfo);
            } finally {
                mr.exitCall();
            }
        } finally {
            mw.exitCall();
        }
    }

    /** {@code wr_set_ud_addr} on a UD QP, holding the address handle for the call; {@code wr_set_xrc_srqn} on XRC. */
    private void address(PendingWr wr) {
        if (wr.ah() instanceof NativeAddressHandle ah) {
            if (!ah.enterCall()) {
                fail(Errno.EINVAL, "the address handle was closed before setUdAddr reached the library");
            } else {
                try {
                    binding.wrSetUdAddr(setUdAddr, qpx, ah.handle(), wr.remoteQpn(), wr.remoteQkey());
                } finally {
                    ah.exitCall();
                }
            }
        }
        if (xrc) {
            binding.wrU32(setXrcSrqn, qpx, wr.remoteSrqn());
        }
    }

    /** The DATA setters other than one SGE. */
    private void data(PendingWr wr) {
        switch (wr.dataKind()) {
            case PendingWr.DATA_SGE -> binding.wrSetSge(setSge, qpx, wr.sgeLkey(0), wr.sgeAddr(0), wr.sgeLength(0));
            case PendingWr.DATA_SGE_LIST -> {
                int n = wr.sgeCount();
                for (int k = 0; k < n; k++) {
                    long s = sgeList + k * ibv_sge.SIZEOF;
                    binding.putLong(s + ibv_sge.addr$off, wr.sgeAddr(k));
                    binding.putInt(s + ibv_sge.length$off, wr.sgeLength(k));
                    binding.putInt(s + ibv_sge.lkey$off, wr.sgeLkey(k));
                }
                binding.wrSetList(setSgeList, qpx, n, sgeList);
            }
            // A list is passed concatenated: librxe 44's ibv_wr_set_inline_data_list never adds up the length
            // (D-009), and the seed defines the list as the buffers' concatenation.
            case PendingWr.DATA_INLINE -> binding.wrSetInlineData(setInlineData, qpx, wr.inlineData().address(),
                    wr.inlineLength());
            default -> { }
        }
    }

    @Override
    protected int completeBatch() {
        int rc = critical ? binding.wrCompleteCritical(wrComplete, qpx) : binding.wrComplete(wrComplete, qpx);
        return rc == 0 ? 0 : -NativeErrors.ofOp(rc);
    }

    @Override
    protected void abortBatch() {
        binding.wrCall(wrAbort, qpx);
    }

    @Override
    protected void onBound(MemoryWindow mw, int rkey, MwBindInfo info) {
        ((NativeMemoryWindow) mw).boundByWr(rkey, info);
    }
}
