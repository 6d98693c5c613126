package org.verbs4j.provider.jnr;

import static org.verbs4j.provider.jnr.JnrProvider.errnoOf;

import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_cq;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_cq_ex;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_poll_cq_attr;
import org.verbs4j.provider.nativecommon.internal.CqStructs.ibv_wc;
import org.verbs4j.spi.support.AbstractCompletionQueue;
import org.verbs4j.spi.support.CompletionFields;
import org.verbs4j.provider.nativecommon.internal.NativeKind;
import org.verbs4j.provider.nativecommon.internal.NativeCompletionChannel;

/**
 * A completion queue: an extended one, {@code struct ibv_cq_ex}, polled through its {@code start_poll},
 * {@code end_poll} and {@code read_*} function pointers, where the provider library creates one;
 * otherwise a plain {@code struct ibv_cq} polled through {@code ibv_context.ops.poll_cq} into a native
 * {@code ibv_wc} array. Both fill a {@link WorkCompletionBatch} with the same values: where
 * {@code ibv_poll_cq(3)} leaves a field undefined (every field but wr_id, status, qp_num and vendor_err of a
 * failed completion; imm_data without IBV_WC_WITH_IMM or IBV_WC_WITH_INV) both report 0. The one difference is
 * pkey_index, which {@code ibv_cq_ex} has no reader for: an extended CQ reports 0.
 *
 * <p>An {@code ibv_cq_ex *} is an {@code ibv_cq *} ({@code ibv_cq_ex_to_cq} is a cast), so QP creation,
 * {@code ibv_req_notify_cq}, completion events, asynchronous events and {@code ibv_destroy_cq} take the same
 * handle either way.
 *
 * @see "ibv_create_cq(3)"
 * @see "ibv_create_cq_ex(3)"
 * @see "ibv_poll_cq(3)"
 */
final class JnrCompletionQueue extends AbstractCompletionQueue {
    final JnrContext context;
    final long handle;
    /** {@code IBV_WC_SUCCESS}. */
    private static final int WC_SUCCESS = 0;

    private final long pollCq;
    private final long reqNotifyCq;
    private long wcArray;
    private int wcCapacity;

    /** Created by {@code ibv_create_cq_ex}: polled through the function pointers below. */
    private final boolean extended;
    private final long startPoll;
    private final long endPoll;
    private final long readOpcode;
    private final long readVendorErr;
    private final long readByteLen;
    private final long readImmData;
    private final long readQpNum;
    private final long readSrcQp;
    private final long readWcFlags;
    private final long readSlid;
    private final long readSl;
    private final long readDlidPathBits;
    /** The zeroed {@code struct ibv_poll_cq_attr} of every {@code start_poll}; 0 for a plain CQ. */
    private long pollAttr;

    /**
     * @param cq an {@code ibv_cq_ex *} when {@code extended}, else an {@code ibv_cq *}
     * @param extended whether {@code ibv_create_cq_ex} created it with {@code IBV_WC_STANDARD_FLAGS}
     */
    JnrCompletionQueue(JnrContext context, long cq, NativeCompletionChannel channel, boolean extended) {
        super(context, null, channel, NativeMemory.getInt(cq + ibv_cq.cqe$off));
        this.context = context;
        this.handle = cq;
        context.track(NativeKind.CQ, cq, this);
        this.extended = extended;
        this.pollCq = context.op(ibv_context.ops$poll_cq$off);
        this.reqNotifyCq = context.op(ibv_context.ops$req_notify_cq$off);
        if (extended) {
            startPoll = InlineVerbs.fn(cq, ibv_cq_ex.start_poll$off);
            endPoll = InlineVerbs.fn(cq, ibv_cq_ex.end_poll$off);
            readOpcode = InlineVerbs.fn(cq, ibv_cq_ex.read_opcode$off);
            readVendorErr = InlineVerbs.fn(cq, ibv_cq_ex.read_vendor_err$off);
            readByteLen = InlineVerbs.fn(cq, ibv_cq_ex.read_byte_len$off);
            readImmData = InlineVerbs.fn(cq, ibv_cq_ex.read_imm_data$off);
            readQpNum = InlineVerbs.fn(cq, ibv_cq_ex.read_qp_num$off);
            readSrcQp = InlineVerbs.fn(cq, ibv_cq_ex.read_src_qp$off);
            readWcFlags = InlineVerbs.fn(cq, ibv_cq_ex.read_wc_flags$off);
            readSlid = InlineVerbs.fn(cq, ibv_cq_ex.read_slid$off);
            readSl = InlineVerbs.fn(cq, ibv_cq_ex.read_sl$off);
            readDlidPathBits = InlineVerbs.fn(cq, ibv_cq_ex.read_dlid_path_bits$off);
            pollAttr = context.resources.allocate(ibv_poll_cq_attr.SIZEOF);
        } else {
            startPoll = endPoll = readOpcode = readVendorErr = readByteLen = readImmData = readQpNum
                    = readSrcQp = readWcFlags = readSlid = readSl = readDlidPathBits = 0;
        }
        if (channel != null) {
            dependOn(channel);
        }
        register();
    }

    /** Whether {@code ibv_create_cq_ex} created this CQ, so that it is polled with {@code ibv_start_poll}. */
    boolean extended() {
        return extended;
    }

    @Override
    protected synchronized int pollInto(WorkCompletionBatch batch) {
        checkOpen();
        long cq = handle;
        return extended ? pollExtended(cq, batch) : pollPlain(cq, batch);
    }

    private int pollPlain(long cq, WorkCompletionBatch batch) {
        int want = batch.capacity();
        if (want > wcCapacity) {
            // Grows once to the largest batch seen; later polls reuse it.
            if (wcArray != 0) {
                context.resources.free(wcArray);
            }
            wcArray = context.resources.allocate(ibv_wc.SIZEOF * want);
            wcCapacity = want;
        }
        int n = InlineVerbs.pollCq(pollCq, cq, want, wcArray);
        if (n < 0) {
            throw new VerbsException("ibv_poll_cq", -n, null);
        }
        for (int i = 0; i < n; i++) {
            long wc = wcArray + ibv_wc.SIZEOF * i;
            long wrId = NativeMemory.getLong(wc + ibv_wc.wr_id$off);
            int status = NativeMemory.getInt(wc + ibv_wc.status$off);
            int qpNum = NativeMemory.getInt(wc + ibv_wc.qp_num$off);
            int vendorErr = NativeMemory.getInt(wc + ibv_wc.vendor_err$off);
            if (status != WC_SUCCESS) {
                addFailed(batch, wrId, status, vendorErr, qpNum);
                continue;
            }
            int flags = NativeMemory.getInt(wc + ibv_wc.wc_flags$off);
            int imm = (flags & (WcFlags.WITH_IMM | WcFlags.WITH_INV)) != 0
                    ? NativeMemory.getInt(wc + ibv_wc.imm_data$off) : 0;
            batch.add(wrId, status,
                    NativeMemory.getInt(wc + ibv_wc.opcode$off),
                    vendorErr,
                    NativeMemory.getInt(wc + ibv_wc.byte_len$off),
                    hostOrderImm(imm, flags),
                    qpNum,
                    NativeMemory.getInt(wc + ibv_wc.src_qp$off),
                    flags,
                    NativeMemory.getU16(wc + ibv_wc.pkey_index$off),
                    NativeMemory.getU16(wc + ibv_wc.slid$off),
                    NativeMemory.getU8(wc + ibv_wc.sl$off),
                    NativeMemory.getU8(wc + ibv_wc.dlid_path_bits$off));
        }
        return n;
    }

    /**
     * As {@code ibv_start_poll}, {@code ibv_end_poll} and {@code ibv_wc_read_*} do, one completion per
     * start_poll/end_poll pair. {@code next_poll} is not used: ibv_create_cq_ex(3) says end_poll still follows a
     * next_poll that returns ENOENT, but librxe 44's next_poll then ends the batch itself (it stores the consumer
     * index and unlocks), so that end_poll would move rxe's consumer index past the producer and make the CQ return
     * stale entries. One completion per pair is correct under both readings.
     */
    private int pollExtended(long cq, WorkCompletionBatch batch) {
        int want = batch.capacity();
        int n = 0;
        while (n < want) {
            NativeMemory.putInt(pollAttr + ibv_poll_cq_attr.comp_mask$off, 0);
            int rc = InlineVerbs.startPoll(startPoll, cq, pollAttr);
            if (rc == Errno.ENOENT) {
                // Empty: ibv_create_cq_ex(3) says end_poll is not called after a failed start_poll.
                break;
            }
            if (rc != 0) {
                if (n > 0) {
                    // Throwing would lose the completions already consumed; a lasting error shows at the next poll.
                    break;
                }
                throw new VerbsException("ibv_start_poll", rc, null);
            }
            try {
                addCurrent(cq, batch);
            } finally {
                InlineVerbs.endPoll(endPoll, cq);
            }
            n++;
        }
        return n;
    }

    /** Adds the completion {@code start_poll} made current. */
    private void addCurrent(long cq, WorkCompletionBatch batch) {
        long wrId = NativeMemory.getLong(cq + ibv_cq_ex.wr_id$off);
        int status = NativeMemory.getInt(cq + ibv_cq_ex.status$off);
        int qpNum = InlineVerbs.readU32(readQpNum, cq);
        int vendorErr = InlineVerbs.readU32(readVendorErr, cq);
        if (status != WC_SUCCESS) {
            // ibv_poll_cq(3): the other fields of a failed completion are not valid, so their readers are not
            // called.
            addFailed(batch, wrId, status, vendorErr, qpNum);
            return;
        }
        int flags = InlineVerbs.readU32(readWcFlags, cq);
        // read_imm_data returns imm_data as ibv_wc holds it, and the invalidated rkey with IBV_WC_WITH_INV.
        int imm = (flags & (WcFlags.WITH_IMM | WcFlags.WITH_INV)) != 0 ? InlineVerbs.readU32(readImmData, cq) : 0;
        int opcode = InlineVerbs.readU32(readOpcode, cq);
        int byteLen = InlineVerbs.readU32(readByteLen, cq);
        if (!CompletionFields.hasSource(opcode)) {
            batch.add(wrId, status, opcode, vendorErr, byteLen, hostOrderImm(imm, flags), qpNum, 0, flags, 0, 0, 0, 0);
            return;
        }
        batch.add(wrId, status, opcode, vendorErr, byteLen, hostOrderImm(imm, flags), qpNum,
                InlineVerbs.readU32(readSrcQp, cq),
                flags,
                0, // ibv_cq_ex has no pkey_index reader
                InlineVerbs.readU32(readSlid, cq) & 0xffff,
                InlineVerbs.readU8(readSl, cq),
                InlineVerbs.readU8(readDlidPathBits, cq));
    }

    /** A failed completion: the fields {@code ibv_poll_cq(3)} defines for it, 0 for the others. */
    private static void addFailed(WorkCompletionBatch batch, long wrId, int status, int vendorErr, int qpNum) {
        batch.add(wrId, status, 0, vendorErr, 0, 0, qpNum, 0, 0, 0, 0, 0, 0);
    }

    /** imm_data arrives in network order; an invalidated rkey shares the field in host order. */
    private static int hostOrderImm(int imm, int flags) {
        return (flags & WcFlags.WITH_IMM) != 0 ? Integer.reverseBytes(imm) : imm;
    }

    @Override
    protected void arm(boolean solicitedOnly) {
        int rc = InlineVerbs.reqNotifyCq(reqNotifyCq, handle, solicitedOnly ? 1 : 0);
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", rc, null);
        }
    }

    @Override
    protected int destroy() {
        int rc = context.libs.ibverbs().ibv_destroy_cq(handle);
        return rc == 0 ? 0 : errnoOf(rc);
    }

    @Override
    protected synchronized void afterDestroy() {
        context.untrack(NativeKind.CQ, handle, this);
        if (wcArray != 0) {
            context.resources.free(wcArray);
            wcArray = 0;
        }
        if (pollAttr != 0) {
            context.resources.free(pollAttr);
            pollAttr = 0;
        }
    }
}
