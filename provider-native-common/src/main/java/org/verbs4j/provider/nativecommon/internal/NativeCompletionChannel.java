package org.verbs4j.provider.nativecommon.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
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
public final class NativeCompletionChannel extends NativeObject implements CompletionChannel {
    private final int fd;

    /**
     * Wraps a channel {@code ibv_create_comp_channel} returned.
     *
     * @param <C> the provider's context
     * @param context the context it was created on
     * @param channel the {@code struct ibv_comp_channel *}, not 0
     */
    public <C extends AbstractVerbsObject & NativeContextSupport> NativeCompletionChannel(C context, long channel) {
        super("CompletionChannel", context, NativeKind.COMP_CHANNEL, channel);
        this.fd = context.binding().getInt(channel + ibv_comp_channel.fd$off);
        register();
    }

    @Override
    public CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        checkOpen();
        Arguments.timeout(timeout, unit);
        synchronized (this) {
            checkOpen();
            IbverbsBinding binding = binding();
            if (!binding.awaitReadable(fd, timeout, unit, "ibv_get_cq_event")) {
                return null;
            }
            return nativeContext().completionQueueAt(
                    NativeErrors.check(binding.getAndAckCqEvent(handle()), "ibv_get_cq_event", null));
        }
    }

    @Override
    protected int destroy() {
        return NativeErrors.errno(binding().destroyCompChannel(handle()));
    }
}
