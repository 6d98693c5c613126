package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;

/**
 * libibverbs through FFM as the shared native object model's {@link IbverbsBinding}: each call turns its
 * addresses into segments and calls the downcall of {@link Ibverbs} or {@link InlineOps}.
 */
public final class FfmIbverbsBinding implements IbverbsBinding {
    /** The one instance: the downcalls are static. */
    public static final FfmIbverbsBinding INSTANCE = new FfmIbverbsBinding();
    /** All of native memory, for the fields the object model reads and writes by address. */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private FfmIbverbsBinding() {}

    @Override
    public int getInt(long address) {
        return ALL.get(JAVA_INT, address);
    }

    @Override
    public void putInt(long address, int value) {
        ALL.set(JAVA_INT, address, value);
    }

    @Override
    public int deregMr(long mr) {
        return Ibverbs.failure(Ibverbs.ibv_dereg_mr(MemorySegment.ofAddress(mr)));
    }

    @Override
    public int destroyAh(long ah) {
        return Ibverbs.failure(Ibverbs.ibv_destroy_ah(MemorySegment.ofAddress(ah)));
    }

    @Override
    public int callDeallocOp(long fn, long object) {
        return Ibverbs.failure(InlineOps.dealloc(MemorySegment.ofAddress(fn), MemorySegment.ofAddress(object)));
    }

    @Override
    public int destroyCompChannel(long channel) {
        return Ibverbs.failure(Ibverbs.ibv_destroy_comp_channel(MemorySegment.ofAddress(channel)));
    }

    @Override
    public boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb) {
        return Poller.awaitReadable(fd, timeout, unit, verb);
    }

    @Override
    public long getAndAckCqEvent(long channel) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cqOut = a.allocate(ADDRESS);
            MemorySegment ctxOut = a.allocate(ADDRESS);
            int rc = Ibverbs.ibv_get_cq_event(MemorySegment.ofAddress(channel), cqOut, ctxOut);
            if (rc != 0) {
                throw new VerbsException("ibv_get_cq_event", Ibverbs.errnoOf(rc), null);
            }
            MemorySegment cq = cqOut.get(ADDRESS, 0);
            Ibverbs.ibv_ack_cq_events(cq, 1);
            return cq.address();
        }
    }
}
