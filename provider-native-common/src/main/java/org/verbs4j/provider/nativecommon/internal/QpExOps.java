package org.verbs4j.provider.nativecommon.internal;

/**
 * The function pointers of {@code struct ibv_qp_ex}: the WR session of {@code ibv_wr_post(3)}. <b>Data path,
 * written by hand:</b> {@code NativeWrSession} calls these on every WR, and a binding implements each as one
 * downcall through the pointer it is given, with no allocation. Builders and setters write the next WQE in user
 * memory, so a binding may call them without a thread-state transition (FFM's critical downcalls);
 * {@code wr_start} (takes the send queue's lock), {@code wr_complete} (rings the doorbell, a system call on rxe)
 * and {@code wr_abort} are ordinary calls unless {@code CriticalDataPath} allows otherwise.
 *
 * <p>The builders return nothing; {@link #wrComplete} answers the op's raw result, which the caller hands to
 * {@link NativeErrors#ofOp} when it is not 0.
 */
public interface QpExOps {
    /**
     * {@code void (*)(struct ibv_qp_ex *)}, as an ordinary call: {@code wr_start}, {@code wr_abort}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     */
    void wrCall(long fn, long qpx);

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
     * {@code int (*)(struct ibv_qp_ex *)}: {@code wr_complete}.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @return the op's raw result: 0, or the errno with either sign ({@link NativeErrors#ofOp})
     */
    int wrComplete(long fn, long qpx);

    /**
     * {@link #wrComplete} as a critical call, where the device's data path allows it.
     *
     * @param fn the function pointer, not 0
     * @param qpx the {@code struct ibv_qp_ex *}
     * @return the op's raw result: 0, or the errno with either sign ({@link NativeErrors#ofOp})
     */
    default int wrCompleteCritical(long fn, long qpx) {
        return wrComplete(fn, qpx);
    }

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
}
