package org.verbs4j.provider.jnr;

import static org.verbs4j.provider.jnr.JnrProvider.errnoOf;

import java.util.List;
import java.util.Objects;
import org.verbs4j.PostRecvException;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.RecvWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.NativeProtectionDomain;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_srq_attr;
import org.verbs4j.provider.nativecommon.internal.NativeKind;

/**
 * A shared receive queue, {@code struct ibv_srq}; receives are posted through
 * {@code ibv_context.ops.post_srq_recv}.
 *
 * @see "ibv_create_srq(3)"
 */
final class JnrSharedReceiveQueue extends AbstractVerbsObject implements SharedReceiveQueue {
    final JnrContext context;
    final long handle;
    private static final int IBV_SRQ_LIMIT = 1 << 1;

    private final NativeProtectionDomain pd;
    private final long postSrqRecv;
    private final RecvWrArray recvWrs;
    private final long scratch;

    JnrSharedReceiveQueue(NativeProtectionDomain pd, long srq, int maxSge) {
        super("SharedReceiveQueue", ((JnrContext) pd.nativeContext()));
        this.context = ((JnrContext) pd.nativeContext());
        this.handle = srq;
        context.track(NativeKind.SRQ, srq, this);
        this.pd = pd;
        this.postSrqRecv = ((JnrContext) pd.nativeContext()).op(ibv_context.ops$post_srq_recv$off);
        this.recvWrs = new RecvWrArray(((JnrContext) pd.nativeContext()).resources);
        this.scratch = ((JnrContext) pd.nativeContext()).resources.allocate(ibv_srq_attr.SIZEOF);
        dependOn(pd);
        register();
    }

    @Override
    public ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public synchronized int srqNum() {
        checkOpen();
        long srq = handle;
        long fn = InlineVerbs.verbsContextOp(context.handle(), verbs_context.get_srq_num$off);
        if (fn == 0 || InlineVerbs.callPP(fn, srq, scratch) != 0) {
            // Only XRC SRQs have a number; a basic SRQ reports 0.
            return 0;
        }
        return NativeMemory.getInt(scratch);
    }

    @Override
    public synchronized SrqInitAttributes query() {
        checkOpen();
        long srq = handle;
        int rc = context.libs.ibverbs().ibv_query_srq(srq, scratch);
        if (rc != 0) {
            throw new VerbsException("ibv_query_srq", errnoOf(rc), null);
        }
        return new SrqInitAttributes(NativeMemory.getInt(scratch + ibv_srq_attr.max_wr$off),
                NativeMemory.getInt(scratch + ibv_srq_attr.max_sge$off),
                NativeMemory.getInt(scratch + ibv_srq_attr.srq_limit$off));
    }

    @Override
    public synchronized void armLimit(int srqLimit) {
        if (srqLimit < 0) {
            throw new IllegalArgumentException("srqLimit cannot be negative: " + srqLimit);
        }
        checkOpen();
        long srq = handle;
        NativeMemory.clear(scratch, ibv_srq_attr.SIZEOF);
        NativeMemory.putInt(scratch + ibv_srq_attr.srq_limit$off, srqLimit);
        int rc = context.libs.ibverbs().ibv_modify_srq(srq, scratch, IBV_SRQ_LIMIT);
        if (rc != 0) {
            throw new VerbsException("ibv_modify_srq", errnoOf(rc), "srq_limit " + srqLimit);
        }
    }

    @Override
    public synchronized void postRecv(RecvWr wr) {
        checkOpen();
        long srq = handle;
        post(srq, recvWrs.write(wr));
    }

    @Override
    public synchronized void postRecv(List<RecvWr> wrs) {
        checkOpen();
        Objects.requireNonNull(wrs, "wrs");
        checkOpen();
        long srq = handle;
        if (!wrs.isEmpty()) {
            post(srq, recvWrs.write(wrs));
        }
    }

    private void post(long srq, long list) {
        int rc = InlineVerbs.callPPP(postSrqRecv, srq, list, recvWrs.badWr);
        if (rc != 0) {
            throw new PostRecvException("ibv_post_srq_recv", rc, recvWrs.badIndex(), null);
        }
    }

    @Override
    protected int destroy() {
        int rc = context.libs.ibverbs().ibv_destroy_srq(handle);
        return rc == 0 ? 0 : errnoOf(rc);
    }

    @Override
    protected synchronized void afterDestroy() {
        context.untrack(NativeKind.SRQ, handle, this);
        recvWrs.free();
        context.resources.free(scratch);
    }
}
