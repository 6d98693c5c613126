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
 * <p><b>Control path, declared once:</b> every other op is a method of {@link LibIbverbsOps}, which each binding
 * binds from its declarations alone ({@link #libibverbsOps()}) and which answers in {@link NativeErrors}' contract
 * (address or −errno, 0 or −errno). The object model calls it directly, with the address
 * {@link NativeContextSupport#op} finds from the declaration; an op at address 0 answers {@code -EOPNOTSUPP}.
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
}
