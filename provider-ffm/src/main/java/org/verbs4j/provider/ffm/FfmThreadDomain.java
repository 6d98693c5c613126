package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.ThreadDomain;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.provider.nativecommon.internal.ContextStructs;

/** A thread domain, {@code struct ibv_td}, allocated through the {@code verbs_context} op. */
final class FfmThreadDomain extends AbstractVerbsObject implements ThreadDomain {
    final FfmContext ctx;
    final MemorySegment td;

    FfmThreadDomain(FfmContext ctx, MemorySegment td) {
        super("ThreadDomain", ctx);
        this.ctx = ctx;
        this.td = td;
        register();
    }

    @Override
    public Context context() {
        checkOpen();
        return ctx;
    }

    @Override
    protected int destroy() {
        MemorySegment op = ctx.verbsOp(ContextStructs.verbs_context.dealloc_td$off);
        return op.address() == 0 ? Errno.EOPNOTSUPP : Ibverbs.failure(InlineOps.dealloc(op, td));
    }
}
