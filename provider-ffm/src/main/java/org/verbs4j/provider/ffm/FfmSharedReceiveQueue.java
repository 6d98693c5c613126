package org.verbs4j.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.RecvWr;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.ibv_srq;
import org.verbs4j.provider.ffm.internal.Structs.ibv_srq_attr;
import org.verbs4j.provider.ffm.internal.Structs.verbs_context;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.provider.nativecommon.internal.NativeProtectionDomain;
import org.verbs4j.provider.nativecommon.internal.ContextStructs;

/** A shared receive queue, {@code struct ibv_srq}, posted to through {@code ops.post_srq_recv}. */
final class FfmSharedReceiveQueue extends AbstractVerbsObject implements SharedReceiveQueue {
    final FfmContext ctx;
    private static final int IBV_SRQ_LIMIT = 1 << 1;

    private final NativeProtectionDomain pd;
    final MemorySegment srq;
    private final int srqNum;
    private final Scratch scratch;
    private final RecvPoster poster;

    FfmSharedReceiveQueue(NativeProtectionDomain pd, MemorySegment srq, int maxWr, int maxSge) {
        super("SharedReceiveQueue", ((FfmContext) pd.nativeContext()));
        this.ctx = ((FfmContext) pd.nativeContext());
        this.pd = pd;
        this.srq = srq.reinterpret(ibv_srq.LAYOUT.byteSize());
        this.scratch = new Scratch(this);
        this.poster = new RecvPoster(scratch, "ibv_post_srq_recv", maxWr, maxSge);
        this.srqNum = readSrqNum();
        dependOn(pd);
        register();
    }

    private int readSrqNum() {
        MemorySegment op = ctx.verbsOp(ContextStructs.verbs_context.get_srq_num$off);
        if (op.address() == 0) {
            return 0;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ValueLayout.JAVA_INT);
            return InlineOps.get_srq_num(op, srq, out) == 0 ? out.get(ValueLayout.JAVA_INT, 0) : 0;
        }
    }

    @Override
    public ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public int srqNum() {
        checkOpen();
        return srqNum;
    }

    @Override
    public SrqInitAttributes query() {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(ibv_srq_attr.LAYOUT);
            int rc = Ibverbs.ibv_query_srq(srq, attr);
            if (rc != 0) {
                throw new VerbsException("ibv_query_srq", Ibverbs.errnoOf(rc), null);
            }
            return new SrqInitAttributes((int) ibv_srq_attr.max_wr$vh.get(attr, 0L),
                    Math.max(1, (int) ibv_srq_attr.max_sge$vh.get(attr, 0L)),
                    (int) ibv_srq_attr.srq_limit$vh.get(attr, 0L));
        }
    }

    @Override
    public void armLimit(int srqLimit) {
        checkOpen();
        if (srqLimit < 0) {
            throw new IllegalArgumentException("srqLimit cannot be negative: " + srqLimit);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(ibv_srq_attr.LAYOUT);
            ibv_srq_attr.srq_limit$vh.set(attr, 0L, srqLimit);
            int rc = Ibverbs.ibv_modify_srq(srq, attr, IBV_SRQ_LIMIT);
            if (rc != 0) {
                throw new VerbsException("ibv_modify_srq", Ibverbs.errnoOf(rc), "srq_limit " + srqLimit);
            }
        }
    }

    @Override
    public void postRecv(RecvWr wr) {
        checkOpen();
        poster.post(ctx.postSrqRecv, srq, wr);
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        checkOpen();
        poster.post(ctx.postSrqRecv, srq, wrs);
    }

    @Override
    protected int destroy() {
        return Ibverbs.failure(Ibverbs.ibv_destroy_srq(srq));
    }

    @Override
    protected void afterDestroy() {
        ctx.srqs.remove(srq.address());
        scratch.free();
    }
}
