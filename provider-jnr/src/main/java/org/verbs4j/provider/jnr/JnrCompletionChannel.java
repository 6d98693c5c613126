package org.verbs4j.provider.jnr;

import static org.verbs4j.provider.jnr.JnrProvider.errnoOf;

import java.util.concurrent.TimeUnit;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.provider.jnr.internal.IbvCompChannel;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;

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

    JnrCompletionChannel(JnrContext context, long channel) {
        super("CompletionChannel", context);
        this.context = context;
        this.handle = channel;
        context.track(ContextResources.Kind.COMP_CHANNEL, channel, this);
        this.scratch = context.resources.allocate(24);
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
            int fd = NativeMemory.getInt(ch + IbvCompChannel.fd$OFFSET);
            if (!Fds.awaitReadable(context.libs, scratch, fd, timeout, unit)) {
                return null;
            }
            if (context.libs.ibverbs().ibv_get_cq_event(ch, scratch + 8, scratch + 16) != 0) {
                throw new VerbsException("ibv_get_cq_event", context.libs.lastErrno(), null);
            }
            long cq = NativeMemory.getAddress(scratch + 8);
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
