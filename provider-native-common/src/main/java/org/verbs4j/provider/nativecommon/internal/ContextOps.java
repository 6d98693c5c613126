package org.verbs4j.provider.nativecommon.internal;

/**
 * The ops of a context that {@code verbs.h} calls from inline functions: {@code ibv_context.ops} and the extended
 * ops of {@code struct verbs_context}, each called through the function pointer the object model read (and
 * checked for NULL, or against {@code verbs_context.sz}).
 *
 * <p><b>Data path, written by hand:</b> {@link #postSend}, {@link #postRecv}, {@link #pollCq} and their
 * {@code *Critical} twins. They answer the op's raw result, so that success costs one compare; the caller hands a
 * failure to {@link NativeErrors#ofOp} or {@link NativeErrors#ofPoll}. A binding implements each as one downcall
 * with no allocation.
 *
 * <p><b>Control path:</b> every other call, in {@link NativeErrors}' contract (address or −errno, 0 or −errno).
 */
public interface ContextOps {
    /**
     * Calls {@code ibv_context.ops.post_send}, as the inline {@code ibv_post_send(3)} does.
     *
     * @param fn the op's address
     * @param qp the {@code struct ibv_qp *}
     * @param wr the first {@code struct ibv_send_wr}
     * @param badWr where the op stores the WR it refused
     * @return the op's raw result: 0, or the errno with either sign ({@link NativeErrors#ofOp})
     */
    int postSend(long fn, long qp, long wr, long badWr);

    /**
     * {@link #postSend} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param qp the {@code struct ibv_qp *}
     * @param wr the first {@code struct ibv_send_wr}
     * @param badWr where the op stores the WR it refused
     * @return the op's raw result: 0, or the errno with either sign ({@link NativeErrors#ofOp})
     */
    default int postSendCritical(long fn, long qp, long wr, long badWr) {
        return postSend(fn, qp, wr, badWr);
    }

    /**
     * Calls {@code ibv_context.ops.post_recv} or {@code post_srq_recv}, as the inline {@code ibv_post_recv(3)}
     * and {@code ibv_post_srq_recv(3)} do: both take (queue, wr, bad_wr).
     *
     * @param fn the op's address
     * @param queue the {@code struct ibv_qp *} or {@code struct ibv_srq *}
     * @param wr the first {@code struct ibv_recv_wr}
     * @param badWr where the op stores the WR it refused
     * @return the op's raw result: 0, or the errno with either sign ({@link NativeErrors#ofOp})
     */
    int postRecv(long fn, long queue, long wr, long badWr);

    /**
     * {@link #postRecv} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param queue the {@code struct ibv_qp *} or {@code struct ibv_srq *}
     * @param wr the first {@code struct ibv_recv_wr}
     * @param badWr where the op stores the WR it refused
     * @return the op's raw result: 0, or the errno with either sign ({@link NativeErrors#ofOp})
     */
    default int postRecvCritical(long fn, long queue, long wr, long badWr) {
        return postRecv(fn, queue, wr, badWr);
    }

    /**
     * {@code ops.poll_cq}, which the inline {@code ibv_poll_cq(3)} calls.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq *}
     * @param entries how many {@code struct ibv_wc} fit at {@code wc}
     * @param wc the array
     * @return the completions written, or a negative value on failure ({@link NativeErrors#ofPoll})
     */
    int pollCq(long fn, long cq, int entries, long wc);

    /**
     * {@link #pollCq} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq *}
     * @param entries how many {@code struct ibv_wc} fit at {@code wc}
     * @param wc the array
     * @return the completions written, or a negative value on failure ({@link NativeErrors#ofPoll})
     */
    default int pollCqCritical(long fn, long cq, int entries, long wc) {
        return pollCq(fn, cq, entries, wc);
    }

    /**
     * {@code ops.req_notify_cq}, which the inline {@code ibv_req_notify_cq(3)} calls.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq *}
     * @param solicitedOnly 1 for solicited completions only, else 0
     * @return 0, or −errno
     */
    int reqNotifyCq(long fn, long cq, int solicitedOnly);

    /**
     * Calls {@code ibv_context.ops.bind_mw}, as the inline {@code ibv_bind_mw(3)} does.
     *
     * @param fn the op's address
     * @param qp the {@code struct ibv_qp *}
     * @param mw the {@code struct ibv_mw *}
     * @param bind the {@code struct ibv_mw_bind}
     * @return 0, or −errno
     */
    int bindMw(long fn, long qp, long mw, long bind);

    /**
     * Calls a context op that makes an object from (context, attr): {@code verbs_context.create_qp_ex} for
     * {@code ibv_create_qp_ex(3)}, {@code alloc_parent_domain} for {@code ibv_alloc_parent_domain(3)}.
     *
     * @param fn the op's address, not 0
     * @param context the {@code struct ibv_context *}
     * @param attr the op's attribute struct
     * @return the object's address, or −errno
     */
    long callCreateOp(long fn, long context, long attr);

    /**
     * Calls a context op that frees an object, {@code int (*)(void *)}: {@code ops.dealloc_mw} for
     * {@code ibv_dealloc_mw(3)}, {@code verbs_context.dealloc_td} for {@code ibv_dealloc_td(3)}, which
     * {@code verbs.h} defines inline.
     *
     * @param fn the op's address, not 0
     * @param object the {@code struct ibv_mw *} or {@code struct ibv_td *}
     * @return 0, or −errno
     */
    int callDeallocOp(long fn, long object);

    /**
     * {@code ops.alloc_mw}, which the inline {@code ibv_alloc_mw(3)} calls.
     *
     * @param fn the op's address, not 0
     * @param pd the {@code struct ibv_pd *}
     * @param type the {@code enum ibv_mw_type} value
     * @return the {@code struct ibv_mw *}, or −errno
     */
    long allocMw(long fn, long pd, int type);

    /**
     * {@code verbs_context.create_cq_ex}, which the inline {@code ibv_create_cq_ex(3)} calls.
     *
     * @param fn the op's address, not 0
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_cq_init_attr_ex}
     * @return the {@code struct ibv_cq_ex *}, or −errno
     */
    long createCqEx(long fn, long context, long attr);

    /**
     * {@code verbs_context.query_device_ex}, which the inline {@code ibv_query_device_ex(3)} calls, without input.
     *
     * @param fn the op's address, not 0
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_device_attr_ex} to fill
     * @param size its size in bytes
     * @return 0, or −errno
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
     * @return 0, or −errno
     */
    int queryPort(long fn, long context, int port, long attr, long size);

    /**
     * Calls {@code verbs_context.get_srq_num}, as the inline {@code ibv_get_srq_num(3)} does.
     *
     * @param fn the op's address, not 0
     * @param srq the {@code struct ibv_srq *}
     * @param out where the op stores the number, 4 bytes
     * @return 0, or −errno
     */
    int callSrqNumOp(long fn, long srq, long out);
}
