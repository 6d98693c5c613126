package org.verbs4j.provider.jnr;

import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.IbvContext;
import org.verbs4j.provider.jnr.internal.IbvCq;
import org.verbs4j.provider.jnr.internal.IbvWc;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;

/**
 * A completion queue, {@code struct ibv_cq}, polled through {@code ibv_context.ops.poll_cq} into a native
 * {@code ibv_wc} array that is reused from poll to poll.
 *
 * @see "ibv_create_cq(3)"
 * @see "ibv_poll_cq(3)"
 */
final class JnrCompletionQueue extends JnrResource implements CompletionQueue {
    private final JnrCompletionChannel channel;
    private final int capacity;
    private final long pollCq;
    private final long reqNotifyCq;
    private long wcArray;
    private int wcCapacity;

    JnrCompletionQueue(JnrContext context, long cq, JnrCompletionChannel channel) {
        super(context, cq, ContextResources.Kind.CQ, "CQ");
        this.channel = channel;
        this.capacity = NativeMemory.getInt(cq + IbvCq.cqe$OFFSET);
        this.pollCq = context.op(IbvContext.ops$poll_cq$OFFSET);
        this.reqNotifyCq = context.op(IbvContext.ops$req_notify_cq$OFFSET);
        if (channel != null) {
            channel.retain();
        }
    }

    @Override
    public Context context() {
        return context;
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
    public synchronized int poll(WorkCompletionBatch batch) {
        long cq = handle();
        int want = batch.capacity();
        if (want > wcCapacity) {
            // Grows once to the largest batch seen; later polls reuse it.
            if (wcArray != 0) {
                context.resources.free(wcArray);
            }
            wcArray = context.resources.allocate(IbvWc.SIZEOF * want);
            wcCapacity = want;
        }
        batch.clear();
        int n = InlineVerbs.pollCq(pollCq, cq, want, wcArray);
        if (n < 0) {
            throw new VerbsException("ibv_poll_cq", -n, null);
        }
        for (int i = 0; i < n; i++) {
            long wc = wcArray + IbvWc.SIZEOF * i;
            int flags = NativeMemory.getInt(wc + IbvWc.wc_flags$OFFSET);
            int imm = NativeMemory.getInt(wc + IbvWc.imm_data$OFFSET);
            // imm_data arrives in network order; an invalidated rkey shares the field in host order.
            if ((flags & WcFlags.WITH_IMM) != 0) {
                imm = Integer.reverseBytes(imm);
            }
            batch.add(NativeMemory.getLong(wc + IbvWc.wr_id$OFFSET),
                    NativeMemory.getInt(wc + IbvWc.status$OFFSET),
                    NativeMemory.getInt(wc + IbvWc.opcode$OFFSET),
                    NativeMemory.getInt(wc + IbvWc.vendor_err$OFFSET),
                    NativeMemory.getInt(wc + IbvWc.byte_len$OFFSET),
                    imm,
                    NativeMemory.getInt(wc + IbvWc.qp_num$OFFSET),
                    NativeMemory.getInt(wc + IbvWc.src_qp$OFFSET),
                    flags,
                    NativeMemory.getU16(wc + IbvWc.pkey_index$OFFSET),
                    NativeMemory.getU16(wc + IbvWc.slid$OFFSET),
                    NativeMemory.getU8(wc + IbvWc.sl$OFFSET),
                    NativeMemory.getU8(wc + IbvWc.dlid_path_bits$OFFSET));
        }
        return n;
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        long cq = handle();
        if (channel == null) {
            throw new IllegalStateException("the CQ has no completion channel");
        }
        int rc = InlineVerbs.reqNotifyCq(reqNotifyCq, cq, solicitedOnly ? 1 : 0);
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", rc, null);
        }
    }

    @Override
    int destroy() {
        int rc = context.libs.ibverbs().ibv_destroy_cq(handle);
        return rc == 0 ? 0 : errnoOf(rc);
    }

    @Override
    String destroyVerb() {
        return "ibv_destroy_cq";
    }

    @Override
    synchronized void afterDestroy() {
        if (wcArray != 0) {
            context.resources.free(wcArray);
            wcArray = 0;
        }
        if (channel != null) {
            channel.release();
        }
    }
}
