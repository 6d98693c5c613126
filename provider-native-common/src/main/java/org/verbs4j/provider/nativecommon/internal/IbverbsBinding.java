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

    // ---- nqp: queue pairs and shared receive queues (NativeQueuePair, NativeSharedReceiveQueue,
    // NativeQueuePairs, NativeSendWrs, NativeRecvPoster, NativeQpAttrs). Field access first, then the verbs.
    // A create verb answers the new object's address, or the errno it failed with negated (user-space
    // addresses are positive); the other verbs answer 0 or the errno, as the destroy verbs above do. The
    // function-pointer calls answer the op's own result unchanged.

    /**
     * Reads a 64-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value
     */
    long getLong(long address);

    /**
     * Writes a 64-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value
     */
    void putLong(long address, long value);

    /**
     * Reads a 16-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value, sign-extended
     */
    short getShort(long address);

    /**
     * Writes a 16-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value
     */
    void putShort(long address, short value);

    /**
     * Reads an 8-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value, sign-extended
     */
    byte getByte(long address);

    /**
     * Writes an 8-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value
     */
    void putByte(long address, byte value);

    /**
     * Copies native memory into an array.
     *
     * @param address the first byte, in live native memory
     * @param into the array, filled whole
     */
    void getBytes(long address, byte[] into);

    /**
     * Copies an array into native memory.
     *
     * @param address the first byte, in live native memory
     * @param from the array, copied whole
     */
    void putBytes(long address, byte[] from);

    /**
     * Allocates zeroed native memory, 8-byte aligned ({@code calloc(3)}).
     *
     * @param bytes its size, at least 1
     * @return its address
     * @throws OutOfMemoryError if the allocation fails
     */
    long allocate(long bytes);

    /**
     * Frees memory {@link #allocate} gave ({@code free(3)}).
     *
     * @param address its address
     */
    void free(long address);

    /**
     * Calls {@code ibv_context.ops.post_send}, as the inline {@code ibv_post_send(3)} does.
     *
     * @param fn the op's address
     * @param qp the {@code struct ibv_qp *}
     * @param wr the first {@code struct ibv_send_wr}
     * @param badWr where the op stores the WR it refused
     * @return the op's result: 0, or an errno (some providers negate it)
     */
    int postSend(long fn, long qp, long wr, long badWr);

    /**
     * Calls {@code ibv_context.ops.post_recv} or {@code post_srq_recv}, as the inline {@code ibv_post_recv(3)}
     * and {@code ibv_post_srq_recv(3)} do: both take (queue, wr, bad_wr).
     *
     * @param fn the op's address
     * @param queue the {@code struct ibv_qp *} or {@code struct ibv_srq *}
     * @param wr the first {@code struct ibv_recv_wr}
     * @param badWr where the op stores the WR it refused
     * @return the op's result: 0, or an errno (some providers negate it)
     */
    int postRecv(long fn, long queue, long wr, long badWr);

    /**
     * Calls {@code ibv_context.ops.bind_mw}, as the inline {@code ibv_bind_mw(3)} does.
     *
     * @param fn the op's address
     * @param qp the {@code struct ibv_qp *}
     * @param mw the {@code struct ibv_mw *}
     * @param bind the {@code struct ibv_mw_bind}
     * @return the op's result: 0, or an errno (some providers negate it)
     */
    int bindMw(long fn, long qp, long mw, long bind);

    /**
     * {@code ibv_create_qp(3)}.
     *
     * @param pd the {@code struct ibv_pd *} (or parent domain)
     * @param initAttr the {@code struct ibv_qp_init_attr}; the library writes the granted sizes back
     * @return the {@code struct ibv_qp *}, or the errno negated
     */
    long createQp(long pd, long initAttr);

    /**
     * Calls a context op that makes an object from (context, attr): {@code verbs_context.create_qp_ex} for
     * {@code ibv_create_qp_ex(3)}, {@code alloc_parent_domain} for {@code ibv_alloc_parent_domain(3)}.
     *
     * @param fn the op's address, not 0
     * @param context the {@code struct ibv_context *}
     * @param attr the op's attribute struct
     * @return the object's address, or the errno negated
     */
    long callCreateOp(long fn, long context, long attr);

    /**
     * {@code ibv_qp_to_qp_ex(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @return the {@code struct ibv_qp_ex *}, or the errno negated
     */
    long qpToQpEx(long qp);

    /**
     * {@code ibv_modify_qp(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param attr the {@code struct ibv_qp_attr}
     * @param mask the attributes to change
     * @return 0, or the errno
     */
    int modifyQp(long qp, long attr, int mask);

    /**
     * {@code ibv_query_qp(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param attr the {@code struct ibv_qp_attr} to fill
     * @param mask the attributes asked for
     * @param initAttr the {@code struct ibv_qp_init_attr} to fill
     * @return 0, or the errno
     */
    int queryQp(long qp, long attr, int mask, long initAttr);

    /**
     * {@code ibv_destroy_qp(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @return 0, or the errno
     */
    int destroyQp(long qp);

    /**
     * {@code ibv_dealloc_pd(3)}, here for the parent domain of a QP with a thread domain.
     *
     * @param pd the {@code struct ibv_pd *}
     * @return 0, or the errno
     */
    int deallocPd(long pd);

    /**
     * {@code ibv_query_qp_data_in_order(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param op the {@code enum ibv_wr_opcode}
     * @param flags the flags
     * @return the library's answer
     */
    int queryDataInOrder(long qp, int op, int flags);

    /**
     * {@code ibv_create_srq(3)}.
     *
     * @param pd the {@code struct ibv_pd *}
     * @param initAttr the {@code struct ibv_srq_init_attr}; the library writes the granted sizes back
     * @return the {@code struct ibv_srq *}, or the errno negated
     */
    long createSrq(long pd, long initAttr);

    /**
     * {@code ibv_modify_srq(3)}.
     *
     * @param srq the {@code struct ibv_srq *}
     * @param attr the {@code struct ibv_srq_attr}
     * @param mask the attributes to change
     * @return 0, or the errno
     */
    int modifySrq(long srq, long attr, int mask);

    /**
     * {@code ibv_query_srq(3)}.
     *
     * @param srq the {@code struct ibv_srq *}
     * @param attr the {@code struct ibv_srq_attr} to fill
     * @return 0, or the errno
     */
    int querySrq(long srq, long attr);

    /**
     * {@code ibv_destroy_srq(3)}.
     *
     * @param srq the {@code struct ibv_srq *}
     * @return 0, or the errno
     */
    int destroySrq(long srq);

    /**
     * Calls {@code verbs_context.get_srq_num}, as the inline {@code ibv_get_srq_num(3)} does.
     *
     * @param fn the op's address, not 0
     * @param srq the {@code struct ibv_srq *}
     * @param out where the op stores the number, 4 bytes
     * @return 0, or an errno
     */
    int callSrqNumOp(long fn, long srq, long out);
}
