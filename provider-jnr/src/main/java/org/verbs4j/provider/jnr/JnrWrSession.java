package org.verbs4j.provider.jnr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import org.verbs4j.Errno;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_mw_bind_info;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_qp_ex;
import org.verbs4j.spi.support.AbstractWrSession;
import org.verbs4j.spi.support.PendingWr;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryWindow;
import org.verbs4j.provider.nativecommon.internal.NativeAddressHandle;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryRegion;
import org.verbs4j.provider.nativecommon.internal.NativeQueuePair;

/**
 * A QP's WR session over the {@code struct ibv_qp_ex} function pointers ({@code ibv_wr_post(3)}), called through
 * jffi. The rules of the seed are checked in {@link AbstractWrSession}; a WR reaches the provider library only whole
 * and valid, so an opcode that was not requested (which may have no function behind it) is never called.
 *
 * <p>Each WR is issued as builder, then {@code wr_set_ud_addr}/{@code wr_set_xrc_srqn}, then its DATA setter, with
 * {@code wr_id} and {@code wr_flags} written into the {@code ibv_qp_ex} just before the builder. An inline WR's
 * flags carry {@code IBV_SEND_INLINE}: rxe (rdma-core 44) marks a WQE inline only by that flag. Builders and setters
 * allocate nothing: they write the reused native scratch memory of this session.
 */
final class JnrWrSession extends AbstractWrSession {
    private final NativeQueuePair qp;
    private final long qpx;
    private final boolean xrc;

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

    /** Native scratch: SGE list, MW bind info, the atomic-write operand; freed by the GC with the session. */
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment sgeList;
    private final MemorySegment bindInfo;
    private final MemorySegment atomicOperand;

    JnrWrSession(NativeQueuePair qp, long qpx, Set<WrOpcode> sendOps, QpCapabilities cap, boolean ipCsum) {
        super(qp, qp.type(), sendOps, cap.maxInlineData(), cap.maxSendSge(), ipCsum);
        this.qp = qp;
        this.qpx = qpx;
        this.xrc = qp.type() == QpType.XRC_SEND;
        atomicCmpSwp = InlineVerbs.fn(qpx, ibv_qp_ex.wr_atomic_cmp_swp$off);
        atomicFetchAdd = InlineVerbs.fn(qpx, ibv_qp_ex.wr_atomic_fetch_add$off);
        atomicWrite = InlineVerbs.fn(qpx, ibv_qp_ex.wr_atomic_write$off);
        bindMw = InlineVerbs.fn(qpx, ibv_qp_ex.wr_bind_mw$off);
        localInv = InlineVerbs.fn(qpx, ibv_qp_ex.wr_local_inv$off);
        rdmaRead = InlineVerbs.fn(qpx, ibv_qp_ex.wr_rdma_read$off);
        rdmaWrite = InlineVerbs.fn(qpx, ibv_qp_ex.wr_rdma_write$off);
        rdmaWriteImm = InlineVerbs.fn(qpx, ibv_qp_ex.wr_rdma_write_imm$off);
        send = InlineVerbs.fn(qpx, ibv_qp_ex.wr_send$off);
        sendImm = InlineVerbs.fn(qpx, ibv_qp_ex.wr_send_imm$off);
        sendInv = InlineVerbs.fn(qpx, ibv_qp_ex.wr_send_inv$off);
        sendTso = InlineVerbs.fn(qpx, ibv_qp_ex.wr_send_tso$off);
        setUdAddr = InlineVerbs.fn(qpx, ibv_qp_ex.wr_set_ud_addr$off);
        setXrcSrqn = InlineVerbs.fn(qpx, ibv_qp_ex.wr_set_xrc_srqn$off);
        setInlineData = InlineVerbs.fn(qpx, ibv_qp_ex.wr_set_inline_data$off);
        setSge = InlineVerbs.fn(qpx, ibv_qp_ex.wr_set_sge$off);
        setSgeList = InlineVerbs.fn(qpx, ibv_qp_ex.wr_set_sge_list$off);
        wrStart = InlineVerbs.fn(qpx, ibv_qp_ex.wr_start$off);
        wrComplete = InlineVerbs.fn(qpx, ibv_qp_ex.wr_complete$off);
        wrAbort = InlineVerbs.fn(qpx, ibv_qp_ex.wr_abort$off);
        sgeList = arena.allocate(ibv_sge.SIZEOF * Math.max(cap.maxSendSge(), 1), 8);
        bindInfo = arena.allocate(ibv_mw_bind_info.SIZEOF, 8);
        atomicOperand = arena.allocate(8, 8);
    }

    /** The name of the first requested builder whose function pointer is missing, or null. */
    static String missingOps(long qpx, Set<WrOpcode> ops) {
        if (qpx == 0) {
            return "ibv_qp_ex";
        }
        if (InlineVerbs.fn(qpx, ibv_qp_ex.wr_start$off) == 0 || InlineVerbs.fn(qpx, ibv_qp_ex.wr_complete$off) == 0
                || InlineVerbs.fn(qpx, ibv_qp_ex.wr_abort$off) == 0) {
            return "wr_start/wr_complete/wr_abort";
        }
        for (WrOpcode op : ops) {
            long off = switch (op) {
                case RDMA_WRITE -> ibv_qp_ex.wr_rdma_write$off;
                case RDMA_WRITE_WITH_IMM -> ibv_qp_ex.wr_rdma_write_imm$off;
                case SEND -> ibv_qp_ex.wr_send$off;
                case SEND_WITH_IMM -> ibv_qp_ex.wr_send_imm$off;
                case RDMA_READ -> ibv_qp_ex.wr_rdma_read$off;
                case ATOMIC_CMP_AND_SWP -> ibv_qp_ex.wr_atomic_cmp_swp$off;
                case ATOMIC_FETCH_AND_ADD -> ibv_qp_ex.wr_atomic_fetch_add$off;
                case LOCAL_INV -> ibv_qp_ex.wr_local_inv$off;
                case BIND_MW -> ibv_qp_ex.wr_bind_mw$off;
                case SEND_WITH_INV -> ibv_qp_ex.wr_send_inv$off;
                case TSO -> ibv_qp_ex.wr_send_tso$off;
                case ATOMIC_WRITE -> ibv_qp_ex.wr_atomic_write$off;
                case FLUSH -> -1;
            };
            if (off < 0 || InlineVerbs.fn(qpx, off) == 0) {
                return "wr_" + op.name().toLowerCase(java.util.Locale.ROOT);
            }
        }
        return null;
    }

    /** The session's QP side, for this provider's QueuePair. */
    Control qpSide() {
        return control();
    }

    @Override
    protected boolean sendQueueReady() {
        return qp.sendQueueReady();
    }

    @Override
    protected void startBatch() {
        InlineVerbs.wrP(wrStart, qpx);
    }

    @Override
    protected void emit(PendingWr wr) {
        WrOpcode op = wr.opcode();
        if (op == WrOpcode.FLUSH) {
            fail(Errno.EOPNOTSUPP, "ibv_wr_flush needs rdma-core 45 or later");
            return;
        }
        NativeMemory.putLong(qpx + ibv_qp_ex.wr_id$off, wr.wrId());
        NativeMemory.putInt(qpx + ibv_qp_ex.wr_flags$off, wr.wrFlags());
        switch (op) {
            case SEND -> InlineVerbs.wrP(send, qpx);
            case SEND_WITH_IMM -> InlineVerbs.wrU32(sendImm, qpx, Integer.reverseBytes(wr.immData()));
            case SEND_WITH_INV -> InlineVerbs.wrU32(sendInv, qpx, wr.invalidateRkey());
            case RDMA_WRITE -> InlineVerbs.wrU32U64(rdmaWrite, qpx, wr.rkey(), wr.remoteAddr());
            case RDMA_WRITE_WITH_IMM -> InlineVerbs.wrU32U64U32(rdmaWriteImm, qpx, wr.rkey(), wr.remoteAddr(),
                    Integer.reverseBytes(wr.immData()));
            case RDMA_READ -> InlineVerbs.wrU32U64(rdmaRead, qpx, wr.rkey(), wr.remoteAddr());
            case ATOMIC_CMP_AND_SWP -> InlineVerbs.wrU32U64U64U64(atomicCmpSwp, qpx, wr.rkey(), wr.remoteAddr(),
                    wr.compareAdd(), wr.swap());
            case ATOMIC_FETCH_AND_ADD -> InlineVerbs.wrU32U64U64(atomicFetchAdd, qpx, wr.rkey(), wr.remoteAddr(),
                    wr.compareAdd());
            case ATOMIC_WRITE -> {
                atomicOperand.set(ValueLayout.JAVA_LONG, 0, wr.swap());
                InlineVerbs.wrU32U64P(atomicWrite, qpx, wr.rkey(), wr.remoteAddr(), atomicOperand.address());
            }
            case LOCAL_INV -> InlineVerbs.wrU32(localInv, qpx, wr.invalidateRkey());
            case BIND_MW -> {
                MwBindInfo info = wr.bindInfo();
                long b = bindInfo.address();
                NativeMemory.putAddress(b + ibv_mw_bind_info.mr$off, ((NativeMemoryRegion) info.mr()).handle());
                NativeMemory.putLong(b + ibv_mw_bind_info.addr$off, info.addr());
                NativeMemory.putLong(b + ibv_mw_bind_info.length$off, info.length());
                NativeMemory.putInt(b + ibv_mw_bind_info.mw_access_flags$off, info.mwAccessFlags());
                InlineVerbs.wrPU32P(bindMw, qpx, ((NativeMemoryWindow) wr.mw()).handle(), wr.bindRkey(), b);
            }
            case TSO -> InlineVerbs.wrPU16U16(sendTso, qpx, wr.tsoHeader().address(), wr.tsoHeaderLength(),
                    wr.mss());
            case FLUSH -> throw new AssertionError("refused above");
        }
        if (wr.ah() != null) {
            InlineVerbs.wrPU32U32(setUdAddr, qpx, ((NativeAddressHandle) wr.ah()).handle(), wr.remoteQpn(),
                    wr.remoteQkey());
        }
        if (xrc) {
            InlineVerbs.wrU32(setXrcSrqn, qpx, wr.remoteSrqn());
        }
        switch (wr.dataKind()) {
            case PendingWr.DATA_SGE -> InlineVerbs.wrU32U64U32(setSge, qpx, wr.sgeLkey(0), wr.sgeAddr(0),
                    wr.sgeLength(0));
            case PendingWr.DATA_SGE_LIST -> {
                long base = sgeList.address();
                int n = wr.sgeCount();
                for (int i = 0; i < n; i++) {
                    long s = base + ibv_sge.SIZEOF * i;
                    NativeMemory.putLong(s + ibv_sge.addr$off, wr.sgeAddr(i));
                    NativeMemory.putInt(s + ibv_sge.length$off, wr.sgeLength(i));
                    NativeMemory.putInt(s + ibv_sge.lkey$off, wr.sgeLkey(i));
                }
                InlineVerbs.wrLP(setSgeList, qpx, n, base);
            }
            // The buffers of a list come concatenated and go to wr_set_inline_data, which the seed defines as
            // equivalent: rxe's wr_set_inline_data_list in rdma-core 44 never adds up its total length.
            case PendingWr.DATA_INLINE -> InlineVerbs.wrPL(setInlineData, qpx, wr.inlineData().address(),
                    wr.inlineLength());
            default -> { }
        }
    }

    @Override
    protected int completeBatch() {
        return InlineVerbs.callP(wrComplete, qpx);
    }

    @Override
    protected void abortBatch() {
        InlineVerbs.wrP(wrAbort, qpx);
    }

    @Override
    protected void onBound(MemoryWindow mw, int rkey, MwBindInfo info) {
        ((NativeMemoryWindow) mw).boundByWr(rkey, info);
    }
}
