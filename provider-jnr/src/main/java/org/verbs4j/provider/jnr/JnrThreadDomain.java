package org.verbs4j.provider.jnr;

import org.verbs4j.Context;
import org.verbs4j.ThreadDomain;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * A thread domain, {@code struct ibv_td}, allocated through {@code verbs_context.alloc_td}. QPs use it
 * through a parent domain that pairs it with their PD.
 *
 * @see "ibv_alloc_td(3)"
 */
final class JnrThreadDomain extends AbstractVerbsObject implements ThreadDomain {
    final JnrContext context;
    final long handle;
    JnrThreadDomain(JnrContext context, long td) {
        super("ThreadDomain", context);
        this.context = context;
        this.handle = td;
        context.track(ContextResources.Kind.TD, td, this);
        register();
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    protected int destroy() {
        long fn = InlineVerbs.verbsContextOp(context.handle(), verbs_context.dealloc_td$off);
        return fn == 0 ? org.verbs4j.Errno.EOPNOTSUPP : InlineVerbs.callP(fn, handle);
    }

    @Override
    protected void afterDestroy() {
        context.untrack(ContextResources.Kind.TD, handle, this);
    }
}
