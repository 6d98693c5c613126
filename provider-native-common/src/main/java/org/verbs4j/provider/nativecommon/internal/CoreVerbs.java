package org.verbs4j.provider.nativecommon.internal;

/**
 * The verbs libibverbs exports as functions, by object: the device and context, protection domains and memory
 * regions, address handles, completion channels and CQs, QPs and SRQs. All control path: a binding may allocate
 * and capture {@code errno} on every call.
 *
 * <p>Every call answers in {@link NativeErrors}' contract: a created object's address or −errno; 0 (or a
 * non-negative result) or −errno. {@link NativeErrors#check} turns a failure into the {@code VerbsException}
 * naming the verb; a destroy verb's result goes through {@link NativeErrors#errno} to
 * {@link org.verbs4j.spi.support.AbstractVerbsObject#destroy()}.
 */
public interface CoreVerbs {
    /**
     * {@code ibv_open_device(3)} of the device of that name, from a fresh {@code ibv_get_device_list(3)}: the
     * list is freed before the call returns, so no {@code struct ibv_device *} outlives it.
     *
     * @param name the device's name, as {@code ibv_get_device_name} gives it
     * @return the {@code struct ibv_context *}, or −errno ({@code -ENODEV} if no device has that name)
     */
    long openDevice(String name);

    /**
     * {@code ibv_close_device(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return 0, or −errno
     */
    int closeDevice(long context);

    /**
     * {@code ibv_query_device(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_device_attr} to fill
     * @return 0, or −errno
     */
    int queryDevice(long context, long attr);

    /**
     * {@code ibv_query_gid(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @param port the port number
     * @param index the GID index
     * @param gid 16 bytes to fill
     * @return 0, or −errno
     */
    int queryGid(long context, int port, int index, long gid);

    /**
     * {@code ibv_create_comp_channel(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return the {@code struct ibv_comp_channel *}, or −errno
     */
    long createCompChannel(long context);

    /**
     * {@code ibv_destroy_comp_channel(3)}.
     *
     * @param channel the {@code struct ibv_comp_channel *}
     * @return 0, or −errno
     */
    int destroyCompChannel(long channel);

    /**
     * {@code ibv_get_cq_event(3)} then {@code ibv_ack_cq_events(cq, 1)}: takes and acknowledges one event.
     *
     * @param channel the {@code struct ibv_comp_channel *}, readable
     * @return the {@code struct ibv_cq *} the event is for, or −errno
     */
    long getAndAckCqEvent(long channel);

    /**
     * {@code ibv_get_async_event(3)}; the caller has waited until the context's {@code async_fd} is readable.
     *
     * @param context the {@code struct ibv_context *}
     * @param event a {@code struct ibv_async_event} to fill
     * @return 0, or −errno
     */
    int getAsyncEvent(long context, long event);

    /**
     * {@code ibv_ack_async_event(3)}.
     *
     * @param event the {@code struct ibv_async_event} {@link #getAsyncEvent} filled
     */
    void ackAsyncEvent(long event);

    /**
     * {@code ibv_alloc_pd(3)}.
     *
     * @param context the {@code struct ibv_context *}
     * @return the {@code struct ibv_pd *}, or −errno
     */
    long allocPd(long context);

    /**
     * {@code ibv_dealloc_pd(3)}, here for the parent domain of a QP with a thread domain.
     *
     * @param pd the {@code struct ibv_pd *}
     * @return 0, or −errno
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
     * @return the {@code struct ibv_mr *}, or −errno
     */
    long regMr(long pd, long address, long length, long iova, int access);

    /**
     * {@code ibv_dereg_mr(3)}.
     *
     * @param mr the {@code struct ibv_mr *}
     * @return 0, or −errno
     */
    int deregMr(long mr);

    /**
     * {@code ibv_create_ah(3)}.
     *
     * @param pd the {@code struct ibv_pd *}
     * @param attr a {@code struct ibv_ah_attr}
     * @return the {@code struct ibv_ah *}, or −errno
     */
    long createAh(long pd, long attr);

    /**
     * {@code ibv_destroy_ah(3)}.
     *
     * @param ah the {@code struct ibv_ah *}
     * @return 0, or −errno
     */
    int destroyAh(long ah);

    /**
     * {@code ibv_create_cq(3)} without a CQ context.
     *
     * @param context the {@code struct ibv_context *}
     * @param cqe the entries asked for
     * @param channel the {@code struct ibv_comp_channel *}, or 0
     * @param compVector the completion vector
     * @return the {@code struct ibv_cq *}, or −errno
     */
    long createCq(long context, int cqe, long channel, int compVector);

    /**
     * {@code ibv_destroy_cq(3)}.
     *
     * @param cq the {@code struct ibv_cq *}
     * @return 0, or −errno
     */
    int destroyCq(long cq);

    /**
     * {@code ibv_create_qp(3)}.
     *
     * @param pd the {@code struct ibv_pd *} (or parent domain)
     * @param initAttr the {@code struct ibv_qp_init_attr}; the library writes the granted sizes back
     * @return the {@code struct ibv_qp *}, or −errno
     */
    long createQp(long pd, long initAttr);

    /**
     * {@code ibv_qp_to_qp_ex(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @return the {@code struct ibv_qp_ex *}, or −errno
     */
    long qpToQpEx(long qp);

    /**
     * {@code ibv_modify_qp(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param attr the {@code struct ibv_qp_attr}
     * @param mask the attributes to change
     * @return 0, or −errno
     */
    int modifyQp(long qp, long attr, int mask);

    /**
     * {@code ibv_query_qp(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @param attr the {@code struct ibv_qp_attr} to fill
     * @param mask the attributes asked for
     * @param initAttr the {@code struct ibv_qp_init_attr} to fill
     * @return 0, or −errno
     */
    int queryQp(long qp, long attr, int mask, long initAttr);

    /**
     * {@code ibv_destroy_qp(3)}.
     *
     * @param qp the {@code struct ibv_qp *}
     * @return 0, or −errno
     */
    int destroyQp(long qp);

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
     * @return the {@code struct ibv_srq *}, or −errno
     */
    long createSrq(long pd, long initAttr);

    /**
     * {@code ibv_modify_srq(3)}.
     *
     * @param srq the {@code struct ibv_srq *}
     * @param attr the {@code struct ibv_srq_attr}
     * @param mask the attributes to change
     * @return 0, or −errno
     */
    int modifySrq(long srq, long attr, int mask);

    /**
     * {@code ibv_query_srq(3)}.
     *
     * @param srq the {@code struct ibv_srq *}
     * @param attr the {@code struct ibv_srq_attr} to fill
     * @return 0, or −errno
     */
    int querySrq(long srq, long attr);

    /**
     * {@code ibv_destroy_srq(3)}.
     *
     * @param srq the {@code struct ibv_srq *}
     * @return 0, or −errno
     */
    int destroySrq(long srq);
}
