package org.verbs4j.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.Structs.ibv_comp_channel;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * A completion channel, {@code struct ibv_comp_channel}. Waiting polls its descriptor with
 * {@code poll(2)}, so a timeout never blocks in {@code ibv_get_cq_event}.
 */
final class FfmCompletionChannel extends AbstractVerbsObject implements CompletionChannel {
    final FfmContext ctx;
    final MemorySegment channel;
    private final int fd;

    FfmCompletionChannel(FfmContext ctx, MemorySegment channel) {
        super("CompletionChannel", ctx);
        this.ctx = ctx;
        this.channel = channel.reinterpret(ibv_comp_channel.LAYOUT.byteSize());
        this.fd = (int) ibv_comp_channel.fd$vh.get(this.channel, 0L);
        register();
    }

    @Override
    public Context context() {
        checkOpen();
        return ctx;
    }

    @Override
    public synchronized CompletionQueue awaitEvent(long timeout, TimeUnit unit) {
        checkOpen();
        Objects.requireNonNull(unit, "unit");
        if (!Poller.awaitReadable(fd, timeout, unit, "ibv_get_cq_event")) {
            return null;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cqOut = a.allocate(ValueLayout.ADDRESS);
            MemorySegment ctxOut = a.allocate(ValueLayout.ADDRESS);
            int rc = Ibverbs.ibv_get_cq_event(channel, cqOut, ctxOut);
            if (rc != 0) {
                throw new VerbsException("ibv_get_cq_event", Ibverbs.errnoOf(rc), null);
            }
            MemorySegment cq = cqOut.get(ValueLayout.ADDRESS, 0);
            Ibverbs.ibv_ack_cq_events(cq, 1);
            return ctx.cqs.get(cq.address());
        }
    }

    @Override
    protected int destroy() {
        return Ibverbs.failure(Ibverbs.ibv_destroy_comp_channel(channel));
    }
}
