package org.verbs4j.provider.jnr;

import static org.verbs4j.provider.jnr.JnrProvider.errnoOf;

import java.util.concurrent.TimeUnit;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_comp_channel;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;

/**
 * A completion channel, {@code struct ibv_comp_channel}. {@link #awaitEvent} waits on its file
 * descriptor with {@code poll(2)} so that the wait has a timeout, then takes and acknowledges one event.
 *
 * @see "ibv_create_comp_channel(3)"
 * @see "ibv_get_cq_event(3)"
 */
final class JnrCompletionChannel extends AbstractVerbsObject implements CompletionChannel {
    final JnrContext context;
    final long handle;
    /** {@code struct pollfd}, then the two out-pointers of {@code ibv_get_cq_event}. */
    private final long scratch;
    private static final long CQ_OUT = PosixStructs.pollfd.SIZEOF;
    private static final long CQ_CONTEXT_OUT = CQ_OUT + 8;

    JnrCompletionChannel(JnrContext context, long channel) {
        super("CompletionChannel", context);
        this.context = context;
        this.handle = channel;
        context.track(ContextResources.Kind.COMP_CHANNEL, channel, this);
        this.scratch = context.resources.allocate(CQ_CONTEXT_OUT + 8);
        register();
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        checkOpen();
        Arguments.timeout(timeout, unit);
        synchronized (this) {
            checkOpen();
            long ch = handle;
            int fd = NativeMemory.getInt(ch + ibv_comp_channel.fd$off);
            if (!Fds.awaitReadable(context.libs, scratch, fd, timeout, unit)) {
                return null;
            }
            if (context.libs.ibverbs().ibv_get_cq_event(ch, scratch + CQ_OUT, scratch + CQ_CONTEXT_OUT) != 0) {
                throw new VerbsException("ibv_get_cq_event", context.libs.lastErrno(), null);
            }
            long cq = NativeMemory.getAddress(scratch + CQ_OUT);
            context.libs.ibverbs().ibv_ack_cq_events(cq, 1);
            return (CompletionQueue) context.lookup(cq);
        }
    }

    @Override
    protected int destroy() {
        return context.libs.ibverbs().ibv_destroy_comp_channel(handle) == 0 ? 0 : errnoOf(-1);
    }

    @Override
    protected void afterDestroy() {
        context.untrack(ContextResources.Kind.COMP_CHANNEL, handle, this);
        context.resources.free(scratch);
    }
}
