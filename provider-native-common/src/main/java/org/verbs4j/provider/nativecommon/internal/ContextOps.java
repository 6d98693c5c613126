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
 * <p><b>Control path, declared once:</b> every other call, in {@link NativeErrors}' contract (address or −errno, 0
 * or −errno), written once here over {@link LibIbverbsOps} ({@link #libibverbsOps()}), which each binding binds from
 * its declarations alone; an op at address 0 answers {@code -EOPNOTSUPP} there.
 */
public interface ContextOps {
    /**
     * The control-path ops, as this binding binds {@link LibIbverbsOps}' declarations.
     *
     * @return the bound ops, each call answering in {@link NativeErrors}' contract
     */
    LibIbverbsOps libibverbsOps();

    /**
     * The functions libibverbs exports, for the compatibility path of {@link #queryPort}.
     *
     * @return the bound library
     */
    LibIbverbs libibverbs();

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
     * @return 0, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default int reqNotifyCq(long fn, long cq, int solicitedOnly) {
        return libibverbsOps().req_notify_cq(fn, cq, solicitedOnly);
    }

    /**
     * Calls {@code ibv_context.ops.bind_mw}, as the inline {@code ibv_bind_mw(3)} does.
     *
     * @param fn the op's address
     * @param qp the {@code struct ibv_qp *}
     * @param mw the {@code struct ibv_mw *}
     * @param bind the {@code struct ibv_mw_bind}
     * @return 0, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default int bindMw(long fn, long qp, long mw, long bind) {
        return libibverbsOps().bind_mw(fn, qp, mw, bind);
    }

    /**
     * {@code verbs_context.create_qp_ex}, which the inline {@code ibv_create_qp_ex(3)} calls.
     *
     * @param fn the op's address
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_qp_init_attr_ex}
     * @return the {@code struct ibv_qp *}, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default long createQpEx(long fn, long context, long attr) {
        return libibverbsOps().create_qp_ex(fn, context, attr);
    }

    /**
     * {@code verbs_context.alloc_parent_domain}, which the inline {@code ibv_alloc_parent_domain(3)} calls.
     *
     * @param fn the op's address
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_parent_domain_init_attr}
     * @return the {@code struct ibv_pd *}, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default long allocParentDomain(long fn, long context, long attr) {
        return libibverbsOps().alloc_parent_domain(fn, context, attr);
    }

    /**
     * {@code verbs_context.alloc_td}, which the inline {@code ibv_alloc_td(3)} calls.
     *
     * @param fn the op's address
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_td_init_attr}
     * @return the {@code struct ibv_td *}, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default long allocTd(long fn, long context, long attr) {
        return libibverbsOps().alloc_td(fn, context, attr);
    }

    /**
     * {@code verbs_context.dealloc_td}, which the inline {@code ibv_dealloc_td(3)} calls.
     *
     * @param fn the op's address
     * @param td the {@code struct ibv_td *}
     * @return 0, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default int deallocTd(long fn, long td) {
        return libibverbsOps().dealloc_td(fn, td);
    }

    /**
     * {@code ops.alloc_mw}, which the inline {@code ibv_alloc_mw(3)} calls.
     *
     * @param fn the op's address
     * @param pd the {@code struct ibv_pd *}
     * @param type the {@code enum ibv_mw_type} value
     * @return the {@code struct ibv_mw *}, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default long allocMw(long fn, long pd, int type) {
        return libibverbsOps().alloc_mw(fn, pd, type);
    }

    /**
     * {@code ops.dealloc_mw}, which the inline {@code ibv_dealloc_mw(3)} calls.
     *
     * @param fn the op's address
     * @param mw the {@code struct ibv_mw *}
     * @return 0, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default int deallocMw(long fn, long mw) {
        return libibverbsOps().dealloc_mw(fn, mw);
    }

    /**
     * {@code verbs_context.create_cq_ex}, which the inline {@code ibv_create_cq_ex(3)} calls.
     *
     * @param fn the op's address
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_cq_init_attr_ex}
     * @return the {@code struct ibv_cq_ex *}, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default long createCqEx(long fn, long context, long attr) {
        return libibverbsOps().create_cq_ex(fn, context, attr);
    }

    /**
     * {@code verbs_context.query_device_ex}, which the inline {@code ibv_query_device_ex(3)} calls, without input.
     *
     * @param fn the op's address
     * @param context the {@code struct ibv_context *}
     * @param attr a {@code struct ibv_device_attr_ex} to fill
     * @param size its size in bytes
     * @return 0, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default int queryDeviceEx(long fn, long context, long attr, long size) {
        return libibverbsOps().query_device_ex(fn, context, 0, attr, size);
    }

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
    default int queryPort(long fn, long context, int port, long attr, long size) {
        return fn != 0 ? libibverbsOps().query_port(fn, context, port, attr, size)
                : libibverbs().ibv_query_port(context, port, attr);
    }

    /**
     * {@code verbs_context.advise_mr}, which the inline {@code ibv_advise_mr(3)} calls.
     *
     * @param fn the op's address
     * @param pd the {@code struct ibv_pd *}
     * @param advice an {@code enum ibv_advise_mr_advice} value
     * @param flags {@code IBV_ADVISE_MR_FLAG_*} bits
     * @param sgList an array of {@code numSges} {@code struct ibv_sge}
     * @param numSges its length
     * @return 0, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default int adviseMr(long fn, long pd, int advice, int flags, long sgList, int numSges) {
        return libibverbsOps().advise_mr(fn, pd, advice, flags, sgList, numSges);
    }

    /**
     * {@code verbs_context.query_rt_values}, which the inline {@code ibv_query_rt_values_ex(3)} calls.
     *
     * @param fn the op's address
     * @param context the {@code struct ibv_context *}
     * @param values a {@code struct ibv_values_ex} whose {@code comp_mask} says what to fill
     * @return 0, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default int queryRtValues(long fn, long context, long values) {
        return libibverbsOps().query_rt_values(fn, context, values);
    }

    /**
     * {@code verbs_context.modify_cq}, which the inline {@code ibv_modify_cq(3)} calls.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq *}
     * @param attr a {@code struct ibv_modify_cq_attr}
     * @return 0, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default int modifyCq(long fn, long cq, long attr) {
        return libibverbsOps().modify_cq(fn, cq, attr);
    }

    /**
     * Calls {@code verbs_context.get_srq_num}, as the inline {@code ibv_get_srq_num(3)} does.
     *
     * @param fn the op's address
     * @param srq the {@code struct ibv_srq *}
     * @param out where the op stores the number, 4 bytes
     * @return 0, or −errno ({@code -EOPNOTSUPP} for {@code fn} 0)
     */
    default int getSrqNum(long fn, long srq, long out) {
        return libibverbsOps().get_srq_num(fn, srq, out);
    }
}
