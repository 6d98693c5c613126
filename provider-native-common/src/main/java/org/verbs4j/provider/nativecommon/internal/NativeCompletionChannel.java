package org.verbs4j.provider.nativecommon.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_comp_channel;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;

/**
 * A completion channel, {@code struct ibv_comp_channel}, of either native provider. {@link #awaitEvent} waits
 * on its descriptor with {@code poll(2)}, so that a timeout never blocks in {@code ibv_get_cq_event}, then
 * takes and acknowledges one event. The wait holds the channel's monitor, so a {@code close()} waits for it.
 *
 * @see "ibv_create_comp_channel(3)"
 * @see "ibv_get_cq_event(3)"
 */
public final class NativeCompletionChannel extends AbstractVerbsObject implements CompletionChannel {
    private final NativeContextSupport context;
    private final long handle;
    private final int fd;

    /**
     * Wraps a channel {@code ibv_create_comp_channel} returned.
     *
     * @param <C> the provider's context
     * @param context the context it was created on
     * @param channel the {@code struct ibv_comp_channel *}, not 0
     */
    public <C extends AbstractVerbsObject & NativeContextSupport> NativeCompletionChannel(C context, long channel) {
        super("CompletionChannel", context);
        this.context = context;
        this.handle = channel;
        this.fd = context.binding().getInt(channel + ibv_comp_channel.fd$off);
        context.track(NativeKind.COMP_CHANNEL, channel, this);
        register();
    }

    /** {@return the context it belongs to, for a sibling check} */
    public NativeContextSupport nativeContext() {
        return context;
    }

    /** {@return the {@code struct ibv_comp_channel *}; the caller checks that the channel is open} */
    public long handle() {
        return handle;
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
            IbverbsBinding binding = context.binding();
            if (!binding.awaitReadable(fd, timeout, unit, "ibv_get_cq_event")) {
                return null;
            }
            return context.completionQueueAt(binding.getAndAckCqEvent(handle));
        }
    }

    @Override
    protected int destroy() {
        return context.binding().destroyCompChannel(handle);
    }

    @Override
    protected void afterDestroy() {
        context.untrack(NativeKind.COMP_CHANNEL, handle, this);
    }
}
