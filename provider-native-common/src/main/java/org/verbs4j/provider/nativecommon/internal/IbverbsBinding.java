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
 * {@link org.verbs4j.spi.support.AbstractVerbsObject#destroy()} wants it. The create verbs answer the new
 * object's address, or minus the errno they failed with (a user-space address is never negative).
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

    // ---- npd (issue 12): protection domain, completion queue, their memory and fields ----

    /**
     * Reads a 64-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value
     */
    long getLong(long address);

    /**
     * Reads an unsigned 16-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value, 0..65535
     */
    int getU16(long address);

    /**
     * Reads an unsigned 8-bit field.
     *
     * @param address the field's address in live native memory
     * @return its value, 0..255
     */
    int getU8(long address);

    /**
     * Writes an 8-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value; its low 8 bits are written
     */
    void putByte(long address, int value);

    /**
     * Writes a 16-bit field.
     *
     * @param address the field's address in live native memory
     * @param value the value; its low 16 bits are written
     */
    void putShort(long address, int value);

    /**
     * Copies bytes into native memory.
     *
     * @param address where the first byte goes
     * @param bytes the bytes, all of them copied
     */
    void putBytes(long address, byte[] bytes);

    /**
     * Copies bytes out of native memory.
     *
     * @param address where the first byte is
     * @param bytes filled completely
     */
    void getBytes(long address, byte[] bytes);

    /**
     * Allocates zeroed native memory, 8-byte aligned, that the caller frees with {@link #free}.
     *
     * @param bytes its size in bytes, at least 1
     * @return its address
     */
    long allocate(long bytes);

    /**
     * Frees memory {@link #allocate} returned.
     *
     * @param address its address
     */
    void free(long address);

    /**
     * {@code ibv_alloc_pd(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return the {@code struct ibv_pd *}, or minus the errno
     */
    long allocPd(long context);

    /**
     * {@code ibv_dealloc_pd(3)}.
     *
     * @param pd the {@code struct ibv_pd *}
     * @return 0, or the errno
     */
    int deallocPd(long pd);

    /**
     * {@code ibv_reg_mr_iova2(3)}.
     *
     * @param pd the {@code struct ibv_pd *}
     * @param address the first byte of the memory
     * @param length its length in bytes
     * @param iova the address remote peers and SGEs name its first byte by
     * @param access the {@link org.verbs4j.AccessFlags} bits
     * @return the {@code struct ibv_mr *}, or minus the errno
     */
    long regMr(long pd, long address, long length, long iova, int access);

    /**
     * {@code ops.alloc_mw}, which the inline {@code ibv_alloc_mw(3)} calls.
     *
     * @param fn the op's address, not 0
     * @param pd the {@code struct ibv_pd *}
     * @param type the {@code enum ibv_mw_type} value
     * @return the {@code struct ibv_mw *}, or minus the errno
     */
    long allocMw(long fn, long pd, int type);

    /**
     * {@code ibv_create_ah(3)}.
     *
     * @param pd the {@code struct ibv_pd *}
     * @param attr a {@code struct ibv_ah_attr}
     * @return the {@code struct ibv_ah *}, or minus the errno
     */
    long createAh(long pd, long attr);

    /**
     * {@code ibv_create_cq(3)} without a CQ context.
     *
     * @param context the {@code struct ibv_context *}
     * @param cqe the entries asked for
     * @param channel the {@code struct ibv_comp_channel *}, or 0
     * @param compVector the completion vector
     * @return the {@code struct ibv_cq *}, or minus the errno
     */
    long createCq(long context, int cqe, long channel, int compVector);

    /**
     * {@code verbs_context.create_cq_ex}, which the inline {@code ibv_create_cq_ex(3)} calls.
     *
     * @param fn the op's address, not 0
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_cq_init_attr_ex}
     * @return the {@code struct ibv_cq_ex *}, or minus the errno ({@code EOPNOTSUPP} if it failed without one)
     */
    long createCqEx(long fn, long context, long attr);

    /**
     * {@code ibv_destroy_cq(3)}.
     *
     * @param cq the {@code struct ibv_cq *}
     * @return 0, or the errno
     */
    int destroyCq(long cq);

    /**
     * {@code ops.poll_cq}, which the inline {@code ibv_poll_cq(3)} calls.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq *}
     * @param entries how many {@code struct ibv_wc} fit at {@code wc}
     * @param wc the array
     * @return the completions written, or a negative value on failure
     */
    int pollCq(long fn, long cq, int entries, long wc);

    /**
     * {@code ops.req_notify_cq}, which the inline {@code ibv_req_notify_cq(3)} calls.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq *}
     * @param solicitedOnly 1 for solicited completions only, else 0
     * @return 0, or the errno
     */
    int reqNotifyCq(long fn, long cq, int solicitedOnly);

    /**
     * {@code ibv_cq_ex.start_poll}, which the inline {@code ibv_start_poll(3)} calls.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}
     * @param attr a zeroed {@code struct ibv_poll_cq_attr}
     * @return 0, {@code ENOENT} when the CQ is empty, or another errno
     */
    int startPoll(long fn, long cq, long attr);

    /**
     * {@code ibv_cq_ex.end_poll}, which the inline {@code ibv_end_poll(3)} calls.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}
     */
    void endPoll(long fn, long cq);

    /**
     * An {@code ibv_cq_ex.read_*} op that answers a {@code uint32_t} (or a narrower field widened to it).
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}, between {@code start_poll} and {@code end_poll}
     * @return the field
     */
    int readU32(long fn, long cq);

    /**
     * An {@code ibv_cq_ex.read_*} op that answers a {@code uint8_t}.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}, between {@code start_poll} and {@code end_poll}
     * @return the field, 0..255
     */
    int readU8(long fn, long cq);

    /**
     * {@code ibv_query_device(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_device_attr} to fill
     * @return 0, or the errno
     */
    int queryDevice(long context, long attr);

    /**
     * {@code verbs_context.query_device_ex}, which the inline {@code ibv_query_device_ex(3)} calls, without input.
     *
     * @param fn the op's address, not 0
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_device_attr_ex} to fill
     * @param size its size in bytes
     * @return 0, or the errno
     */
    int queryDeviceEx(long fn, long context, long attr, long size);

    /**
     * {@code ibv_query_port(3)}: through {@code verbs_context.query_port} when {@code fn} is not 0, as the inline
     * function of {@code verbs.h} does, else through the exported compatibility symbol.
     *
     * @param fn the op's address, or 0
     * @param context the {@code struct ibv_context *}
     * @param port the port number
     * @param attr a {@code struct ibv_port_attr} to fill
     * @param size its size in bytes
     * @return 0, or the errno
     */
    int queryPort(long fn, long context, int port, long attr, long size);

    /**
     * {@code ibv_query_gid(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param port the port number
     * @param index the GID index
     * @param gid 16 bytes to fill
     * @return 0, or the errno
     */
    int queryGid(long context, int port, int index, long gid);

    // ---- end of npd's block ----
}
