package org.verbs4j.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemorySegment;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.ibv_cq;
import org.verbs4j.provider.ffm.internal.Structs.ibv_cq_ex;
import org.verbs4j.provider.ffm.internal.Structs.ibv_poll_cq_attr;
import org.verbs4j.provider.ffm.internal.Structs.ibv_wc;
import org.verbs4j.provider.nativecommon.internal.CqStructs;
import org.verbs4j.spi.support.AbstractCompletionQueue;
import org.verbs4j.spi.support.CompletionFields;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionChannel;

/**
 * A completion queue: an extended one ({@code struct ibv_cq_ex}) polled through its
 * {@code start_poll}/{@code end_poll} and {@code read_*} function pointers, or a plain one
 * ({@code struct ibv_cq}) polled through {@code ops.poll_cq} into a reused native {@code ibv_wc} array.
 * An {@code ibv_cq_ex} begins with an {@code ibv_cq}, so every other verb takes the same pointer.
 * Both fill the batch with the same values: immediate data arrives in network order and is handed out
 * in host order.
 */
final class FfmCompletionQueue extends AbstractCompletionQueue {
    final FfmContext ctx;
    private static final int WC_ENTRIES = 64;
    private static final long WC_SIZE = ibv_wc.LAYOUT.byteSize();
    /** {@code IBV_WC_SUCCESS}. */
    private static final int WC_SUCCESS = 0;

    final MemorySegment cq;
    private final Scratch scratch;
    private final MemorySegment wcs;

    /** Whether this is an {@code ibv_cq_ex}. */
    private final boolean extended;
    // The ibv_cq_ex function pointers, read once (a driver sets them at creation); NULL for a plain CQ.
    private final MemorySegment startPoll;
    private final MemorySegment endPoll;
    private final MemorySegment readOpcode;
    private final MemorySegment readVendorErr;
    private final MemorySegment readByteLen;
    private final MemorySegment readImmData;
    private final MemorySegment readQpNum;
    private final MemorySegment readSrcQp;
    private final MemorySegment readWcFlags;
    private final MemorySegment readSlid;
    private final MemorySegment readSl;
    private final MemorySegment readDlidPathBits;
    /** The zeroed {@code ibv_poll_cq_attr} that {@code start_poll} takes. */
    private final MemorySegment pollAttr;

    FfmCompletionQueue(FfmContext ctx, MemorySegment cq, NativeCompletionChannel channel, boolean extended) {
        super(ctx, null, channel, (int) ibv_cq.cqe$vh.get(cq.reinterpret(ibv_cq.LAYOUT.byteSize()), 0L));
        this.ctx = ctx;
        this.extended = extended;
        this.cq = cq.reinterpret(extended ? ibv_cq_ex.LAYOUT.byteSize() : ibv_cq.LAYOUT.byteSize());
        this.scratch = new Scratch(this);
        this.wcs = extended ? MemorySegment.NULL : scratch.allocate(WC_SIZE * WC_ENTRIES);
        this.pollAttr = extended ? scratch.allocate(ibv_poll_cq_attr.LAYOUT.byteSize()) : MemorySegment.NULL;
        this.startPoll = op(CqStructs.ibv_cq_ex.start_poll$off);
        this.endPoll = op(CqStructs.ibv_cq_ex.end_poll$off);
        this.readOpcode = op(CqStructs.ibv_cq_ex.read_opcode$off);
        this.readVendorErr = op(CqStructs.ibv_cq_ex.read_vendor_err$off);
        this.readByteLen = op(CqStructs.ibv_cq_ex.read_byte_len$off);
        this.readImmData = op(CqStructs.ibv_cq_ex.read_imm_data$off);
        this.readQpNum = op(CqStructs.ibv_cq_ex.read_qp_num$off);
        this.readSrcQp = op(CqStructs.ibv_cq_ex.read_src_qp$off);
        this.readWcFlags = op(CqStructs.ibv_cq_ex.read_wc_flags$off);
        this.readSlid = op(CqStructs.ibv_cq_ex.read_slid$off);
        this.readSl = op(CqStructs.ibv_cq_ex.read_sl$off);
        this.readDlidPathBits = op(CqStructs.ibv_cq_ex.read_dlid_path_bits$off);
        if (channel != null) {
            dependOn(channel);
        }
        register();
    }

    /** The {@code ibv_cq_ex} function pointers {@link #poll} calls. */
    private static final long[] POLL_OPS = {CqStructs.ibv_cq_ex.start_poll$off, CqStructs.ibv_cq_ex.end_poll$off,
        CqStructs.ibv_cq_ex.read_opcode$off, CqStructs.ibv_cq_ex.read_vendor_err$off, CqStructs.ibv_cq_ex.read_byte_len$off,
        CqStructs.ibv_cq_ex.read_imm_data$off, CqStructs.ibv_cq_ex.read_qp_num$off, CqStructs.ibv_cq_ex.read_src_qp$off,
        CqStructs.ibv_cq_ex.read_wc_flags$off, CqStructs.ibv_cq_ex.read_slid$off, CqStructs.ibv_cq_ex.read_sl$off,
        CqStructs.ibv_cq_ex.read_dlid_path_bits$off};

    /**
     * Whether a driver's {@code ibv_cq_ex} sets every function pointer {@link #poll} calls; a NULL one
     * would crash the JVM, so such a CQ is destroyed and a plain one made instead.
     */
    static boolean hasPollOps(MemorySegment cqEx) {
        MemorySegment c = cqEx.reinterpret(ibv_cq_ex.LAYOUT.byteSize());
        for (long off : POLL_OPS) {
            if (c.get(ADDRESS, off).address() == 0) {
                return false;
            }
        }
        return true;
    }

    private MemorySegment op(long offset) {
        return extended ? cq.get(ADDRESS, offset) : MemorySegment.NULL;
    }

    /** Whether this CQ is an extended one ({@code ibv_create_cq_ex}), for tests. */
    boolean isExtended() {
        return extended;
    }

    @Override
    protected int pollInto(WorkCompletionBatch batch) {
        synchronized (this) {
            checkOpen();
            int want = batch.capacity();
            if (extended) {
                return pollExtended(batch, want);
            }
            int total = 0;
            while (total < want) {
                int n = Math.min(want - total, WC_ENTRIES);
                int got = InlineOps.poll_cq(ctx.pollCq, cq, n, wcs);
                if (got < 0) {
                    throw new VerbsException("ibv_poll_cq", got < -1 ? -got : Errno.EIO, null);
                }
                for (int i = 0; i < got; i++) {
                    long at = i * WC_SIZE;
                    int flags = (int) ibv_wc.wc_flags$vh.get(wcs, at);
                    int imm = (int) ibv_wc.imm_data$vh.get(wcs, at);
                    if ((flags & WcFlags.WITH_IMM) != 0) {
                        imm = Integer.reverseBytes(imm);
                    }
                    batch.add((long) ibv_wc.wr_id$vh.get(wcs, at), (int) ibv_wc.status$vh.get(wcs, at),
                            (int) ibv_wc.opcode$vh.get(wcs, at), (int) ibv_wc.vendor_err$vh.get(wcs, at),
                            (int) ibv_wc.byte_len$vh.get(wcs, at), imm, (int) ibv_wc.qp_num$vh.get(wcs, at),
                            (int) ibv_wc.src_qp$vh.get(wcs, at), flags,
                            (short) ibv_wc.pkey_index$vh.get(wcs, at) & 0xffff,
                            (short) ibv_wc.slid$vh.get(wcs, at) & 0xffff, (byte) ibv_wc.sl$vh.get(wcs, at) & 0xff,
                            (byte) ibv_wc.dlid_path_bits$vh.get(wcs, at) & 0xff);
                }
                total += got;
                if (got < n) {
                    break;
                }
            }
            return total;
        }
    }

    /**
     * Polls an extended CQ one completion per {@code start_poll}/{@code end_poll} pair. It never calls
     * {@code next_poll}: the man page asks for {@code end_poll} after {@code next_poll} returns
     * {@code ENOENT}, and librxe before rdma-core 55 then moves its consumer index past the producer
     * (later completions are lost or garbage read), and before 61 unlocks its spinlock twice.
     * {@code start_poll} alone is correct everywhere.
     */
    private int pollExtended(WorkCompletionBatch batch, int want) {
        int total = 0;
        while (total < want) {
            int rc = InlineOps.start_poll(startPoll, cq, pollAttr);
            if (rc == Errno.ENOENT) {
                break;
            }
            if (rc != 0) {
                throw new VerbsException("ibv_start_poll", rc < 0 ? -rc : rc, null);
            }
            try {
                readCurrent(batch);
            } finally {
                InlineOps.end_poll(endPoll, cq);
            }
            total++;
        }
        return total;
    }

    /**
     * Adds the completion {@code start_poll} points at. Per {@code ibv_poll_cq(3)} only wr_id, status,
     * qp_num and vendor_err are valid when the status is not SUCCESS, so only those are read then and the
     * rest are 0. The plain path passes on whatever the driver wrote there instead: 0 for an rxe flushed
     * receive, but the opcode and length of a failed send on kernels that fill them; neither is valid.
     * {@code ibv_cq_ex} has no pkey_index reader without {@code IBV_WC_EX_WITH_PKEY_INDEX}, which
     * {@code IBV_WC_STANDARD_FLAGS} leaves out, so pkey_index is reported as 0. The UD-only sender fields are read
     * for receive-side completions only ({@link CompletionFields#hasSource}).
     */
    private void readCurrent(WorkCompletionBatch batch) {
        long wrId = (long) ibv_cq_ex.wr_id$vh.get(cq, 0L);
        int status = (int) ibv_cq_ex.status$vh.get(cq, 0L);
        int qpNum = InlineOps.read_u32(readQpNum, cq);
        if (status != WC_SUCCESS) {
            batch.add(wrId, status, 0, InlineOps.read_u32(readVendorErr, cq), 0, 0, qpNum, 0, 0, 0, 0, 0, 0);
            return;
        }
        int flags = InlineOps.read_u32(readWcFlags, cq);
        int imm = 0;
        if ((flags & (WcFlags.WITH_IMM | WcFlags.WITH_INV)) != 0) {
            // read_imm_data gives imm_data in network order, as ibv_wc.imm_data holds it, and the
            // invalidated rkey in host order, as ibv_wc.invalidated_rkey does: convert as poll() does.
            imm = InlineOps.read_u32(readImmData, cq);
            if ((flags & WcFlags.WITH_IMM) != 0) {
                imm = Integer.reverseBytes(imm);
            }
        }
        int opcode = InlineOps.read_u32(readOpcode, cq);
        int byteLen = InlineOps.read_u32(readByteLen, cq);
        if (!CompletionFields.hasSource(opcode)) {
            batch.add(wrId, status, opcode, 0, byteLen, imm, qpNum, 0, flags, 0, 0, 0, 0);
            return;
        }
        batch.add(wrId, status, opcode, 0, byteLen, imm, qpNum, InlineOps.read_u32(readSrcQp, cq), flags, 0,
                InlineOps.read_u32(readSlid, cq) & 0xffff, InlineOps.read_u8(readSl, cq) & 0xff,
                InlineOps.read_u8(readDlidPathBits, cq) & 0xff);
    }

    @Override
    protected void arm(boolean solicitedOnly) {
        int rc = InlineOps.req_notify_cq(ctx.reqNotifyCq, cq, solicitedOnly ? 1 : 0);
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", Ibverbs.errnoOf(rc), null);
        }
    }

    @Override
    protected int destroy() {
        return Ibverbs.failure(Ibverbs.ibv_destroy_cq(cq));
    }

    @Override
    protected void afterDestroy() {
        ctx.cqs.remove(cq.address());
        scratch.free();
    }
}
