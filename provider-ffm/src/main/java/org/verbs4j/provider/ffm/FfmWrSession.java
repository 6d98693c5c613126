package org.verbs4j.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;
import org.verbs4j.Errno;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.LayoutBuilder;
import org.verbs4j.provider.ffm.internal.Structs.ibv_mw_bind_info;
import org.verbs4j.provider.ffm.internal.Structs.ibv_qp_ex;
import org.verbs4j.provider.ffm.internal.Structs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs;
import org.verbs4j.provider.nativecommon.internal.QpStructs;
import org.verbs4j.spi.support.AbstractWrSession;
import org.verbs4j.spi.support.PendingWr;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryRegion;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryWindow;
import org.verbs4j.provider.nativecommon.internal.NativeAddressHandle;
import org.verbs4j.provider.nativecommon.internal.NativeQueuePair;
import org.verbs4j.provider.nativecommon.internal.NativeScratch;

/**
 * The WR session of one QP, bound to the {@code ibv_wr_*} function pointers of its {@code ibv_qp_ex}, read once at
 * creation and called with address-less downcall handles. The rules of {@code ibv_wr_post(3)} are checked in
 * {@link AbstractWrSession}; a WR reaches the provider library only whole and valid, so an opcode that was not
 * requested (whose pointer may be NULL) is never called.
 *
 * <p>Each WR is issued as builder, then {@code wr_set_ud_addr}/{@code wr_set_xrc_srqn}, then its DATA setter, with
 * {@code wr_id} and {@code wr_flags} written into the {@code ibv_qp_ex} just before the builder. An inline WR's
 * flags carry {@code IBV_SEND_INLINE}: librxe (rdma-core 44) marks a WQE inline only by that flag
 * (known-deviations.md D-009). Scratch memory for SGE lists and bind info is allocated once per QP.
 */
final class FfmWrSession extends AbstractWrSession {
    private static final long SGE_SIZE = ibv_sge.LAYOUT.byteSize();

    private final NativeQueuePair qp;
    private final MemorySegment qpx;
    private final int maxTsoHeader;
    private final boolean xrc;
    /** UD or XRC_SEND: each WR has an address setter after its builder. */
    private final boolean addressed;
    /** The {@code send_ops_flags} bits of requested opcodes whose builder pointer the library left NULL. */
    private final long missingOps;

    private final MemorySegment atomicCmpSwp;
    private final MemorySegment atomicFetchAdd;
    private final MemorySegment bindMw;
    private final MemorySegment localInv;
    private final MemorySegment rdmaRead;
    private final MemorySegment rdmaWrite;
    private final MemorySegment rdmaWriteImm;
    private final MemorySegment send;
    private final MemorySegment sendImm;
    private final MemorySegment sendInv;
    private final MemorySegment sendTso;
    private final MemorySegment setUdAddr;
    private final MemorySegment setXrcSrqn;
    private final MemorySegment setInlineData;
    private final MemorySegment setSge;
    private final MemorySegment setSgeList;
    private final MemorySegment wrStart;
    private final MemorySegment wrComplete;
    private final MemorySegment wrAbort;
    private final MemorySegment atomicWrite;
    private final MemorySegment flush;

    private final MemorySegment sgeList;
    private final MemorySegment atomicValue;
    private final MemorySegment bindInfo;

    FfmWrSession(NativeQueuePair qp, MemorySegment qpx, QpInitAttributes init, NativeScratch scratch) {
        super(qp, init.type(), init.sendOps(), init.cap().maxInlineData(), init.cap().maxSendSge(),
                qp.nativeContext().ipCsum());
        this.qp = qp;
        this.qpx = qpx.reinterpret(ibv_qp_ex.LAYOUT.byteSize() + 8);
        this.maxTsoHeader = init.maxTsoHeader();
        this.xrc = init.type() == QpType.XRC_SEND;
        atomicCmpSwp = fn("wr_atomic_cmp_swp");
        atomicFetchAdd = fn("wr_atomic_fetch_add");
        bindMw = fn("wr_bind_mw");
        localInv = fn("wr_local_inv");
        rdmaRead = fn("wr_rdma_read");
        rdmaWrite = fn("wr_rdma_write");
        rdmaWriteImm = fn("wr_rdma_write_imm");
        send = fn("wr_send");
        sendImm = fn("wr_send_imm");
        sendInv = fn("wr_send_inv");
        sendTso = fn("wr_send_tso");
        setUdAddr = fn("wr_set_ud_addr");
        setXrcSrqn = fn("wr_set_xrc_srqn");
        setInlineData = fn("wr_set_inline_data");
        setSge = fn("wr_set_sge");
        setSgeList = fn("wr_set_sge_list");
        wrStart = fn("wr_start");
        wrComplete = fn("wr_complete");
        wrAbort = fn("wr_abort");
        atomicWrite = fn("wr_atomic_write");
        // wr_flush exists from rdma-core 45; on 44 the word after wr_atomic_write is not part of the struct.
        flush = qp.nativeContext().rdmaCoreVersion() >= 45 ? this.qpx.get(ADDRESS, QpStructs.ibv_qp_ex.wr_flush$off)
                : MemorySegment.NULL;
        this.addressed = xrc || init.type() == QpType.UD;
        long missing = 0;
        for (WrOpcode op : init.sendOps()) {
            if (builderOf(op).address() == 0) {
                missing |= op.sendOpsFlag();
            }
        }
        this.missingOps = missing;
        sgeList = segment(scratch, SGE_SIZE * Math.max(1, init.cap().maxSendSge()));
        atomicValue = segment(scratch, 8);
        bindInfo = segment(scratch, ibv_mw_bind_info.LAYOUT.byteSize());
    }

    /** Scratch memory of the QP as a segment; it lives until the QP's destroy verb, which ends this session first. */
    private static MemorySegment segment(NativeScratch scratch, long bytes) {
        return MemorySegment.ofAddress(scratch.allocate(bytes)).reinterpret(bytes);
    }

    private MemorySegment fn(String field) {
        return qpx.get(ADDRESS, LayoutBuilder.offset(ibv_qp_ex.LAYOUT, field));
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
        InlineOps.wr_void(wrStart, qpx);
    }

    /**
     * Issues one WR. Small enough to be inlined into the session's builders: RDMA WRITE and SEND with one SGE take
     * the straight path; the other builders, the UD and XRC setters and the other DATA setters are methods of
     * their own.
     */
    @Override
    protected void emit(PendingWr wr) {
        WrOpcode op = wr.opcode();
        if ((missingOps & op.sendOpsFlag()) != 0) {
            fail(Errno.EINVAL, "the provider library has no ibv_wr_* builder for " + op);
            return;
        }
        qpx.set(JAVA_LONG_UNALIGNED, QpStructs.ibv_qp_ex.wr_id$off, wr.wrId());
        qpx.set(JAVA_INT_UNALIGNED, QpStructs.ibv_qp_ex.wr_flags$off, wr.wrFlags());
        if (op == WrOpcode.RDMA_WRITE) {
            InlineOps.wr_rdma(rdmaWrite, qpx, wr.rkey(), wr.remoteAddr());
        } else if (op == WrOpcode.SEND) {
            InlineOps.wr_send(send, qpx);
        } else if (!build(op, wr)) {
            return;
        }
        if (addressed) {
            address(wr);
        }
        if (wr.dataKind() == PendingWr.DATA_SGE && op != WrOpcode.FLUSH) {
            InlineOps.wr_set_sge(setSge, qpx, wr.sgeLkey(0), wr.sgeAddr(0), wr.sgeLength(0));
        } else if (op != WrOpcode.FLUSH) {
            data(wr);
        }
    }

    /** Calls the builder of an opcode other than RDMA WRITE and SEND; false if the WR failed instead. */
    private boolean build(WrOpcode op, PendingWr wr) {
        if (op == WrOpcode.TSO && wr.tsoHeaderLength() > maxTsoHeader) {
            fail(Errno.EINVAL, "a TSO header of " + wr.tsoHeaderLength() + " bytes exceeds max_tso_header "
                    + maxTsoHeader);
            return false;
        }
        switch (op) {
            case SEND -> InlineOps.wr_send(send, qpx);
            case SEND_WITH_IMM -> InlineOps.wr_u32(sendImm, qpx, Integer.reverseBytes(wr.immData()));
            case SEND_WITH_INV -> InlineOps.wr_u32(sendInv, qpx, wr.invalidateRkey());
            case RDMA_WRITE -> InlineOps.wr_rdma(rdmaWrite, qpx, wr.rkey(), wr.remoteAddr());
            case RDMA_WRITE_WITH_IMM -> InlineOps.wr_rdma_write_imm(rdmaWriteImm, qpx, wr.rkey(), wr.remoteAddr(),
                    Integer.reverseBytes(wr.immData()));
            case RDMA_READ -> InlineOps.wr_rdma(rdmaRead, qpx, wr.rkey(), wr.remoteAddr());
            case ATOMIC_CMP_AND_SWP -> InlineOps.wr_atomic_cmp_swp(atomicCmpSwp, qpx, wr.rkey(), wr.remoteAddr(),
                    wr.compareAdd(), wr.swap());
            case ATOMIC_FETCH_AND_ADD -> InlineOps.wr_atomic_fetch_add(atomicFetchAdd, qpx, wr.rkey(),
                    wr.remoteAddr(), wr.compareAdd());
            case ATOMIC_WRITE -> {
                atomicValue.set(JAVA_LONG, 0, wr.swap());
                InlineOps.wr_atomic_write(atomicWrite, qpx, wr.rkey(), wr.remoteAddr(), atomicValue);
            }
            case LOCAL_INV -> InlineOps.wr_u32(localInv, qpx, wr.invalidateRkey());
            case BIND_MW -> {
                MwBindInfo info = wr.bindInfo();
                bindInfo.set(JAVA_LONG, MemoryStructs.ibv_mw_bind_info.mr$off, ((NativeMemoryRegion) info.mr()).handle());
                ibv_mw_bind_info.addr$vh.set(bindInfo, 0L, info.addr());
                ibv_mw_bind_info.length$vh.set(bindInfo, 0L, info.length());
                ibv_mw_bind_info.mw_access_flags$vh.set(bindInfo, 0L, info.mwAccessFlags());
                InlineOps.wr_bind_mw(bindMw, qpx, ((NativeMemoryWindow) wr.mw()).handle(), wr.bindRkey(), bindInfo);
            }
            case TSO -> InlineOps.wr_send_tso(sendTso, qpx, wr.tsoHeader(), (short) wr.tsoHeaderLength(),
                    (short) wr.mss());
            case FLUSH -> InlineOps.wr_flush(flush, qpx, wr.rkey(), wr.remoteAddr(), wr.flushLength(),
                    (byte) wr.flushType(), (byte) wr.flushLevel());
        }
        return true;
    }

    /** {@code wr_set_ud_addr} on a UD QP, {@code wr_set_xrc_srqn} on an XRC_SEND QP. */
    private void address(PendingWr wr) {
        if (wr.ah() != null) {
            InlineOps.wr_set_ud_addr(setUdAddr, qpx, ((NativeAddressHandle) wr.ah()).handle(), wr.remoteQpn(),
                    wr.remoteQkey());
        }
        if (xrc) {
            InlineOps.wr_u32(setXrcSrqn, qpx, wr.remoteSrqn());
        }
    }

    /** The DATA setters other than one SGE. */
    private void data(PendingWr wr) {
        switch (wr.dataKind()) {
            case PendingWr.DATA_SGE -> InlineOps.wr_set_sge(setSge, qpx, wr.sgeLkey(0), wr.sgeAddr(0),
                    wr.sgeLength(0));
            case PendingWr.DATA_SGE_LIST -> {
                int n = wr.sgeCount();
                for (int k = 0; k < n; k++) {
                    long o = k * SGE_SIZE;
                    ibv_sge.addr$vh.set(sgeList, o, wr.sgeAddr(k));
                    ibv_sge.length$vh.set(sgeList, o, wr.sgeLength(k));
                    ibv_sge.lkey$vh.set(sgeList, o, wr.sgeLkey(k));
                }
                InlineOps.wr_set_list(setSgeList, qpx, n, sgeList);
            }
            // A list is passed concatenated: librxe 44's ibv_wr_set_inline_data_list never adds up the length
            // (D-009), and the seed defines the list as the buffers' concatenation.
            case PendingWr.DATA_INLINE -> InlineOps.wr_set_inline_data(setInlineData, qpx, wr.inlineData(),
                    wr.inlineLength());
            default -> { }
        }
    }

    private MemorySegment builderOf(WrOpcode op) {
        return switch (op) {
            case SEND -> send;
            case SEND_WITH_IMM -> sendImm;
            case SEND_WITH_INV -> sendInv;
            case RDMA_WRITE -> rdmaWrite;
            case RDMA_WRITE_WITH_IMM -> rdmaWriteImm;
            case RDMA_READ -> rdmaRead;
            case ATOMIC_CMP_AND_SWP -> atomicCmpSwp;
            case ATOMIC_FETCH_AND_ADD -> atomicFetchAdd;
            case ATOMIC_WRITE -> atomicWrite;
            case LOCAL_INV -> localInv;
            case BIND_MW -> bindMw;
            case TSO -> sendTso;
            case FLUSH -> flush;
        };
    }

    @Override
    protected int completeBatch() {
        int rc = InlineOps.wr_complete(wrComplete, qpx);
        return rc < 0 ? -rc : rc;
    }

    @Override
    protected void abortBatch() {
        InlineOps.wr_void(wrAbort, qpx);
    }

    @Override
    protected void onBound(MemoryWindow mw, int rkey, MwBindInfo info) {
        ((NativeMemoryWindow) mw).boundByWr(rkey, info);
    }
}
