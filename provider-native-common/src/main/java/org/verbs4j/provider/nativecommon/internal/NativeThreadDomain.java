package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.Errno;
import org.verbs4j.ThreadDomain;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * A thread domain, {@code struct ibv_td}, of either native provider, allocated through
 * {@code verbs_context.alloc_td}. QPs use it through a parent domain that pairs it with their PD.
 *
 * @see "ibv_alloc_td(3)"
 */
public final class NativeThreadDomain extends NativeObject implements ThreadDomain {
    /** {@code verbs_context.dealloc_td}, or 0. */
    private final long deallocTd;

    /**
     * Wraps a thread domain {@code ibv_alloc_td} returned.
     *
     * @param <C> the provider's context
     * @param context the context it was allocated on
     * @param td the {@code struct ibv_td *}, not 0
     */
    public <C extends AbstractVerbsObject & NativeContextSupport> NativeThreadDomain(C context, long td) {
        super("ThreadDomain", context, NativeKind.TD, td);
        this.deallocTd = context.op("dealloc_td");
        register();
    }

    @Override
    protected int destroy() {
        return deallocTd == 0 ? Errno.EOPNOTSUPP
                : NativeErrors.errno(binding().libibverbsOps().dealloc_td(deallocTd, handle()));
    }
}
