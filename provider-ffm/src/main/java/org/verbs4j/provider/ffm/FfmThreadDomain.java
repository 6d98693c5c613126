package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.ThreadDomain;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.verbs_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs;

/** A thread domain, {@code struct ibv_td}, allocated through the {@code verbs_context} op. */
final class FfmThreadDomain extends FfmObject implements ThreadDomain {
    final MemorySegment td;

    FfmThreadDomain(FfmContext ctx, MemorySegment td) {
        super("ThreadDomain", ctx);
        this.td = td;
    }

    @Override
    public Context context() {
        checkOpen();
        return ctx;
    }

    @Override
    String destroyVerb() {
        return "ibv_dealloc_td";
    }

    @Override
    int destroyNative() {
        MemorySegment op = ctx.verbsOp(ContextStructs.verbs_context.dealloc_td$off);
        return op.address() == 0 ? Errno.EOPNOTSUPP : InlineOps.dealloc(op, td);
    }
}
