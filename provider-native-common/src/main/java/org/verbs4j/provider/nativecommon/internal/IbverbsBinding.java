package org.verbs4j.provider.nativecommon.internal;

// Over 500 lines on purpose: it is the one interface between the shared object model and a binding: every downcall
// the model makes, each with its Javadoc.

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

    // ---- nwr (issue 12): the WR session over the ibv_qp_ex function pointers, ibv_wr_post(3) ----
    // NativeWrSession calls these on every WR: a binding implements each as one downcall through the function
    // pointer it is given, with no allocation. Builders and setters write the next WQE in user memory, so a binding
    // may call them without a thread-state transition (FFM's critical downcalls); wr_start (takes the send queue's
    // lock), wr_complete (rings the doorbell, a system call on rxe) and wr_abort must be ordinary calls.

    /**
     * {@code void (*)(struct ibv_qp_ex *)}, as an ordinary call: {@code wr_start}, {@code wr_abort}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     */
    void wrCall(long fn, long qpx);

    /**
     * {@code int (*)(struct ibv_qp_ex *)}: {@code wr_complete}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @return 0, or the errno (the sign as the provider library gave it)
     */
    int wrComplete(long fn, long qpx);

    /**
     * {@code void (*)(struct ibv_qp_ex *)} as a builder: {@code wr_send}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     */
    void wrBuild(long fn, long qpx);

    /**
     * {@code void (*)(struct ibv_qp_ex *, uint32_t)}: {@code wr_send_imm} and {@code wr_send_inv} (network-order or
     * key argument), {@code wr_local_inv}, {@code wr_set_xrc_srqn}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param value the 32-bit argument
     */
    void wrU32(long fn, long qpx, int value);

    /**
     * {@code void (*)(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr)}: {@code wr_rdma_write},
     * {@code wr_rdma_read}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param rkey the remote key
     * @param remoteAddr the remote address
     */
    void wrRdma(long fn, long qpx, int rkey, long remoteAddr);

    /**
     * {@code wr_rdma_write_imm}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param rkey the remote key
     * @param remoteAddr the remote address
     * @param immDataBe the immediate data in network order
     */
    void wrRdmaWriteImm(long fn, long qpx, int rkey, long remoteAddr, int immDataBe);

    /**
     * {@code wr_atomic_cmp_swp}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param rkey the remote key
     * @param remoteAddr the remote address
     * @param compare the value compared
     * @param swap the value written on a match
     */
    void wrAtomicCmpSwp(long fn, long qpx, int rkey, long remoteAddr, long compare, long swap);

    /**
     * {@code wr_atomic_fetch_add}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param rkey the remote key
     * @param remoteAddr the remote address
     * @param add the value added
     */
    void wrAtomicFetchAdd(long fn, long qpx, int rkey, long remoteAddr, long add);

    /**
     * {@code wr_atomic_write}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param rkey the remote key
     * @param remoteAddr the remote address
     * @param operand the address of the 8-byte operand, in memory the caller keeps alive
     */
    void wrAtomicWrite(long fn, long qpx, int rkey, long remoteAddr, long operand);

    /**
     * {@code wr_bind_mw}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param mw the {@code struct ibv_mw *}
     * @param rkey the rkey the bind gives
     * @param bindInfo the {@code struct ibv_mw_bind_info *}, in memory the caller keeps alive
     */
    void wrBindMw(long fn, long qpx, long mw, int rkey, long bindInfo);

    /**
     * {@code wr_send_tso}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param hdr the header's address, in memory the caller keeps alive
     * @param hdrSize the header's length, 16 bits
     * @param mss the maximum segment size, 16 bits
     */
    void wrSendTso(long fn, long qpx, long hdr, int hdrSize, int mss);

    /**
     * {@code wr_flush}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param rkey the remote key
     * @param remoteAddr the remote address
     * @param length the length flushed
     * @param type the placement type, 8 bits
     * @param level the selectivity level, 8 bits
     */
    void wrFlush(long fn, long qpx, int rkey, long remoteAddr, long length, int type, int level);

    /**
     * {@code wr_set_ud_addr}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param ah the {@code struct ibv_ah *}
     * @param remoteQpn the remote QPN
     * @param remoteQkey the remote Q_Key
     */
    void wrSetUdAddr(long fn, long qpx, long ah, int remoteQpn, int remoteQkey);

    /**
     * {@code wr_set_sge}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param lkey the local key
     * @param addr the local address
     * @param length the length, bytes
     */
    void wrSetSge(long fn, long qpx, int lkey, long addr, int length);

    /**
     * {@code void (*)(struct ibv_qp_ex *, size_t, const void *)}: {@code wr_set_sge_list}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param count the number of entries
     * @param list the {@code struct ibv_sge} array, in memory the caller keeps alive
     */
    void wrSetList(long fn, long qpx, long count, long list);

    /**
     * {@code wr_set_inline_data}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @param addr the data's address, in memory the caller keeps alive
     * @param length the data's length, bytes
     */
    void wrSetInlineData(long fn, long qpx, long addr, long length);
    // ---- end of nwr's block ----

    // ---- npd (issue 12): protection domain, completion queue, their memory and fields ----

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
     * {@code ibv_alloc_pd(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return the {@code struct ibv_pd *}, or minus the errno
     */
    long allocPd(long context);

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

    // ---- nctx (issue 12): the context and the device (NativeContext, NativeContextResources, NativeDevice)

    /**
     * {@code ibv_open_device(3)} of the device of that name, from a fresh {@code ibv_get_device_list(3)}: the
     * list is freed before the call returns, so no {@code struct ibv_device *} outlives it.
     *
     * @param name the device's name, as {@code ibv_get_device_name} gives it
     * @return the {@code struct ibv_context *}, or the errno negated ({@code ENODEV} if no device has that name)
     */
    long openDevice(String name);

    /**
     * {@code ibv_close_device(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return 0, or the errno
     */
    int closeDevice(long context);

    /**
     * {@code ibv_create_comp_channel(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return the {@code struct ibv_comp_channel *}, or the errno negated
     */
    long createCompChannel(long context);

    /**
     * {@code ibv_get_async_event(3)}; the caller has waited until the context's {@code async_fd} is readable.
     *
     * @param context the {@code struct ibv_context *}
     * @param event a {@code struct ibv_async_event} to fill
     * @return 0, or the errno
     */
    int getAsyncEvent(long context, long event);

    /**
     * {@code ibv_ack_async_event(3)}.
     *
     * @param event the {@code struct ibv_async_event} {@link #getAsyncEvent} filled
     */
    void ackAsyncEvent(long event);

    // ---- sess (issue 14): critical data-path calls, decided per device by CriticalDataPath ----
    // The object model calls these instead of their ordinary twins only where CriticalDataPath allows it for the
    // context's device: a user-space provider library whose lock the Java side never lets anyone contend. A binding
    // without critical calls keeps the defaults, which make the ordinary call.

    /**
     * Whether this binding makes the {@code *Critical} calls below without a thread-state transition (FFM's
     * {@code Linker.Option.critical}); false means they are the ordinary calls.
     *
     * @return whether it does
     */
    default boolean hasCriticalCalls() {
        return false;
    }

    /**
     * The file of the shared object that holds a function, as {@code dladdr(3)} names it: for a context op, the
     * provider library whose code the op runs.
     *
     * @param fn the function's address, not 0
     * @return the object's path as the dynamic linker loaded it, or null if the binding cannot tell
     */
    default String libraryOf(long fn) {
        return null;
    }

    /**
     * {@link #postSend} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param qp the {@code struct ibv_qp *}
     * @param wr the first {@code struct ibv_send_wr}
     * @param badWr where the op stores the WR it refused
     * @return the op's result: 0, or an errno (some providers negate it)
     */
    default int postSendCritical(long fn, long qp, long wr, long badWr) {
        return postSend(fn, qp, wr, badWr);
    }

    /**
     * {@link #postRecv} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param queue the {@code struct ibv_qp *} or {@code struct ibv_srq *}
     * @param wr the first {@code struct ibv_recv_wr}
     * @param badWr where the op stores the WR it refused
     * @return the op's result: 0, or an errno (some providers negate it)
     */
    default int postRecvCritical(long fn, long queue, long wr, long badWr) {
        return postRecv(fn, queue, wr, badWr);
    }

    /**
     * {@link #pollCq} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq *}
     * @param entries how many {@code struct ibv_wc} fit at {@code wc}
     * @param wc the array
     * @return the completions written, or a negative value on failure
     */
    default int pollCqCritical(long fn, long cq, int entries, long wc) {
        return pollCq(fn, cq, entries, wc);
    }

    /**
     * {@link #startPoll} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}
     * @param attr a zeroed {@code struct ibv_poll_cq_attr}
     * @return 0, {@code ENOENT} when the CQ is empty, or another errno
     */
    default int startPollCritical(long fn, long cq, long attr) {
        return startPoll(fn, cq, attr);
    }

    /**
     * {@link #endPoll} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}
     */
    default void endPollCritical(long fn, long cq) {
        endPoll(fn, cq);
    }

    /**
     * {@code wr_start} ({@link #wrCall}) as a critical call, where the device's data path allows it.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     */
    default void wrStartCritical(long fn, long qpx) {
        wrCall(fn, qpx);
    }

    /**
     * {@link #wrComplete} as a critical call, where the device's data path allows it.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @return 0, or the errno (the sign as the provider library gave it)
     */
    default int wrCompleteCritical(long fn, long qpx) {
        return wrComplete(fn, qpx);
    }
    // ---- end of sess's block ----
}
