package org.verbs4j.provider.nativecommon.internal;

import java.util.concurrent.TimeUnit;
import org.verbs4j.VerbsException;

/**
 * libibverbs as the shared native object model ({@code Native*} in this package) sees it: the downcalls, with
 * every object as its address, and access to native memory by address. {@code provider-ffm} and
 * {@code provider-jnr} each implement it once, in their {@code internal} package; only one of them is loaded in
 * a JVM that uses a native provider, so the calls stay monomorphic. A binding only calls and copies: it checks
 * nothing, so the caller passes only addresses of live objects (the object model checks that the object is
 * open first).
 *
 * <p>The destroy verbs answer 0 or the positive errno they failed with, as
 * {@link org.verbs4j.spi.support.AbstractVerbsObject#destroy()} wants it.
 */
public interface IbverbsBinding {
    /**
     * Reads a 32-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value
     */
    int getInt(long address);

    /**
     * Writes a 32-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value
     */
    void putInt(long address, int value);

    /**
     * {@code ibv_dereg_mr(3)}.
     *
     * @param mr the {@code struct ibv_mr *}
     * @return 0, or the errno
     */
    int deregMr(long mr);

    /**
     * {@code ibv_destroy_ah(3)}.
     *
     * @param ah the {@code struct ibv_ah *}
     * @return 0, or the errno
     */
    int destroyAh(long ah);

    /**
     * Calls a context op that frees an object, {@code int (*)(void *)}: {@code ops.dealloc_mw} for
     * {@code ibv_dealloc_mw(3)}, {@code verbs_context.dealloc_td} for {@code ibv_dealloc_td(3)}, which
     * {@code verbs.h} defines inline.
     *
     * @param fn the op's address, not 0
     * @param object the {@code struct ibv_mw *} or {@code struct ibv_td *}
     * @return 0, or the errno
     */
    int callDeallocOp(long fn, long object);

    /**
     * {@code ibv_destroy_comp_channel(3)}.
     *
     * @param channel the {@code struct ibv_comp_channel *}
     * @return 0, or the errno
     */
    int destroyCompChannel(long channel);

    /**
     * Waits with {@code poll(2)} until a descriptor is readable.
     *
     * @param fd the descriptor
     * @param timeout the longest wait; 0 checks once
     * @param unit the unit of {@code timeout}
     * @param verb the verb waited for, for the exception's message
     * @return whether it became readable in time
     * @throws VerbsException if {@code poll} fails other than with {@code EINTR}
     */
    boolean awaitReadable(int fd, long timeout, TimeUnit unit, String verb);

    /**
     * {@code ibv_get_cq_event(3)} then {@code ibv_ack_cq_events(cq, 1)}: takes and acknowledges one event.
     *
     * @param channel the {@code struct ibv_comp_channel *}, readable
     * @return the {@code struct ibv_cq *} the event is for
     * @throws VerbsException if {@code ibv_get_cq_event} fails
     */
    long getAndAckCqEvent(long channel);
}
