package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.ThreadDomain;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * A thread domain, {@code struct ibv_td}, of either native provider, allocated through
 * {@code verbs_context.alloc_td}. QPs use it through a parent domain that pairs it with their PD.
 *
 * @see "ibv_alloc_td(3)"
 */
public final class NativeThreadDomain extends AbstractVerbsObject implements ThreadDomain {
    private final NativeContextSupport context;
    /** {@code verbs_context.dealloc_td}, or 0. */
    private final long deallocTd;
    private final long handle;

    /**
     * Wraps a thread domain {@code ibv_alloc_td} returned.
     *
     * @param <C> the provider's context
     * @param context the context it was allocated on
     * @param td the {@code struct ibv_td *}, not 0
     */
    public <C extends AbstractVerbsObject & NativeContextSupport> NativeThreadDomain(C context, long td) {
        super("ThreadDomain", context);
        this.context = context;
        this.deallocTd = context.verbsContextOp(ContextStructs.verbs_context.dealloc_td$off);
        this.handle = td;
        context.track(NativeKind.TD, td, this);
        register();
    }

    /** {@return the context it belongs to, for a sibling check} */
    public NativeContextSupport nativeContext() {
        return context;
    }

    /** {@return the {@code struct ibv_td *}; the caller checks that the domain is open} */
    public long handle() {
        return handle;
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    protected int destroy() {
        return deallocTd == 0 ? Errno.EOPNOTSUPP : context.binding().callDeallocOp(deallocTd, handle);
    }

    @Override
    protected void afterDestroy() {
        context.untrack(NativeKind.TD, handle, this);
    }
}
