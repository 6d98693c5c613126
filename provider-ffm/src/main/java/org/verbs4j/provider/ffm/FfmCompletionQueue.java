package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.ibv_cq;
import org.verbs4j.provider.ffm.internal.Structs.ibv_wc;

/**
 * A completion queue, {@code struct ibv_cq}, polled through {@code ops.poll_cq} into a reused native
 * {@code ibv_wc} array. Immediate data arrives in network order and is handed out in host order.
 */
final class FfmCompletionQueue extends FfmObject implements CompletionQueue {
    private static final int WC_ENTRIES = 64;
    private static final long WC_SIZE = ibv_wc.LAYOUT.byteSize();

    final MemorySegment cq;
    private final FfmCompletionChannel channel;
    private final int capacity;
    private final Scratch scratch;
    private final MemorySegment wcs;

    FfmCompletionQueue(FfmContext ctx, MemorySegment cq, FfmCompletionChannel channel) {
        super("CompletionQueue", ctx);
        this.cq = cq.reinterpret(ibv_cq.LAYOUT.byteSize());
        this.channel = channel;
        this.capacity = (int) ibv_cq.cqe$vh.get(this.cq, 0L);
        this.scratch = new Scratch(this);
        this.wcs = scratch.allocate(WC_SIZE * WC_ENTRIES);
        if (channel != null) {
            channel.retain();
        }
    }

    @Override
    public Context context() {
        return ctx;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    @Override
    public int poll(WorkCompletionBatch batch) {
        batch.clear();
        synchronized (this) {
            checkOpen();
            int want = batch.capacity();
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

    @Override
    public void requestNotify(boolean solicitedOnly) {
        checkOpen();
        if (channel == null) {
            throw new IllegalStateException("this CQ has no completion channel");
        }
        int rc = InlineOps.req_notify_cq(ctx.reqNotifyCq, cq, solicitedOnly ? 1 : 0);
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", Ibverbs.errnoOf(rc), null);
        }
    }

    @Override
    String destroyVerb() {
        return "ibv_destroy_cq";
    }

    @Override
    int destroyNative() {
        return Ibverbs.ibv_destroy_cq(cq);
    }

    @Override
    void afterClose() {
        ctx.cqs.remove(cq.address());
        scratch.free();
        if (channel != null) {
            channel.release();
        }
    }
}
