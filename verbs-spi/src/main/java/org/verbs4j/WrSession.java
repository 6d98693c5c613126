package org.verbs4j;

import java.lang.foreign.MemorySegment;

/**
 * A QP's work-request session: the {@code ibv_wr_*} API of seed {@code ibv_wr_post(3)}, opened with
 * {@link QueuePair#startWr()}.
 *
 * <p>Each WR is a builder call followed by its setters. {@link #wrId(long)} and {@link #wrFlags(int)}
 * are read when the builder is called. Builders and setters return nothing and report nothing: an
 * invalid WR (an opcode not in the QP's {@code sendOps}, a missing or second DATA setter, a missing
 * {@code setUdAddr} on UD or {@code setXrcSrqn} on XRC_SEND, inline data on an opcode that takes none or
 * beyond {@code max_inline_data}, too many SGEs, a QP in the wrong state) makes {@link #complete()} fail
 * and discards the whole batch. Nothing executes before {@code complete()} returns.
 *
 * <p>Builders and setters allocate nothing; a session is reused for the life of its QP. Use it as
 * try-with-resources: {@link #close()} aborts a session that was not completed.
 *
 * <p>Threads: the session belongs to the thread that opened it. A builder, setter, {@code complete()} or
 * {@code abort()} from any other thread throws {@link IllegalStateException} and changes nothing; the owner can
 * still complete or abort the batch. {@link QueuePair#close()} from another thread waits until the owner
 * completes or aborts, so a batch is never built or posted on a destroyed QP.
 *
 * <pre>{@code
 * try (WrSession s = qp.startWr()) {
 *     s.wrId(1);
 *     s.wrFlags(SendFlags.SIGNALED);
 *     s.rdmaWrite(rkey, remoteAddr);
 *     s.setSge(mr.lkey(), mr.address(), 64);
 *     s.complete();
 * }
 * }</pre>
 *
 * @see "ibv_wr_post(3)"
 */
public interface WrSession extends AutoCloseable {
    /** {@return the QP this session posts to} */
    QueuePair qp();

    /** {@return whether the session is open: started and not yet completed or aborted} */
    boolean isActive();

    /**
     * Sets {@code qpx->wr_id} for the next builders.
     *
     * @param wrId any 64-bit value, returned in the completion
     */
    void wrId(long wrId);

    /**
     * Sets {@code qpx->wr_flags} ({@link SendFlags}) for the next builders.
     *
     * @param flags {@link SendFlags} bits
     */
    void wrFlags(int flags);

    // ---- builders ----

    /**
     * {@code ibv_wr_atomic_cmp_swp}: if the remote 8 bytes equal {@code compare}, set them to {@code swap}. RC, XRC_SEND.
     *
     * @param rkey the remote region's or window's rkey
     * @param remoteAddr the remote operand's address, 8-byte aligned
     * @param compare the value the operand must hold
     * @param swap the value written when it does
     * @see "ibv_wr_post(3) ibv_wr_atomic_cmp_swp"
     */
    void atomicCmpSwp(int rkey, long remoteAddr, long compare, long swap);

    /**
     * {@code ibv_wr_atomic_fetch_add}: add {@code add} to the remote 8 bytes. RC, XRC_SEND.
     *
     * @param rkey the remote region's or window's rkey
     * @param remoteAddr the remote operand's address, 8-byte aligned
     * @param add the value added
     * @see "ibv_wr_post(3) ibv_wr_atomic_fetch_add"
     */
    void atomicFetchAdd(int rkey, long remoteAddr, long add);

    /**
     * {@code ibv_wr_atomic_write}: write the 8 bytes of {@code value}, in native byte order, atomically to the
     * remote address (rdma-core 44+). RC, XRC_SEND. Takes no DATA setter.
     *
     * @param rkey the remote region's or window's rkey
     * @param remoteAddr the remote address, 8-byte aligned
     * @param value the 8 bytes to write
     * @see "ibv_wr_post(3) ibv_wr_atomic_write"
     */
    void atomicWrite(int rkey, long remoteAddr, long value);

    /**
     * {@code ibv_wr_bind_mw}: bind a type 2 window with a new rkey. UC, RC, XRC_SEND.
     *
     * @param mw the type 2 window
     * @param rkey its new rkey
     * @param bindInfo the region, range and access it binds
     * @see "ibv_wr_post(3) ibv_wr_bind_mw"
     */
    void bindMw(MemoryWindow mw, int rkey, MwBindInfo bindInfo);

    /**
     * {@code ibv_wr_local_inv}: invalidate the type 2 window with this rkey. UC, RC, XRC_SEND.
     *
     * @param invalidateRkey the window's rkey
     * @see "ibv_wr_post(3) ibv_wr_local_inv"
     */
    void localInv(int invalidateRkey);

    /**
     * {@code ibv_wr_rdma_read}: read into the DATA buffers. RC, XRC_SEND.
     *
     * @param rkey the remote region's or window's rkey
     * @param remoteAddr the remote address
     * @see "ibv_wr_post(3) ibv_wr_rdma_read"
     */
    void rdmaRead(int rkey, long remoteAddr);

    /**
     * {@code ibv_wr_rdma_write}: write the DATA buffers. UC, RC, XRC_SEND.
     *
     * @param rkey the remote region's or window's rkey
     * @param remoteAddr the remote address
     * @see "ibv_wr_post(3) ibv_wr_rdma_write"
     */
    void rdmaWrite(int rkey, long remoteAddr);

    /**
     * {@code ibv_wr_rdma_write_imm}: write, and complete a receive at the remote with {@code immData} (host order).
     *
     * @param rkey the remote region's or window's rkey
     * @param remoteAddr the remote address
     * @param immData 32 bits, host order
     * @see "ibv_wr_post(3) ibv_wr_rdma_write_imm"
     */
    void rdmaWriteImm(int rkey, long remoteAddr, int immData);

    /**
     * {@code ibv_wr_send}. UD, UC, RC, XRC_SEND, RAW_PACKET.
     *
     * @see "ibv_wr_post(3) ibv_wr_send"
     */
    void send();

    /**
     * {@code ibv_wr_send_imm}, with 32-bit immediate data in host order. UD, UC, RC, XRC_SEND.
     *
     * @param immData 32 bits, host order
     * @see "ibv_wr_post(3) ibv_wr_send_imm"
     */
    void sendImm(int immData);

    /**
     * {@code ibv_wr_send_inv}: send, and invalidate {@code invalidateRkey} at the remote. UC, RC, XRC_SEND.
     *
     * @param invalidateRkey the rkey the remote invalidates
     * @see "ibv_wr_post(3) ibv_wr_send_inv"
     */
    void sendInv(int invalidateRkey);

    /**
     * {@code ibv_wr_send_tso}: segment the DATA into {@code mss}-byte SENDs, each prefixed with {@code hdr}
     * (copied at the call, at most 65535 bytes). UD, RAW_PACKET.
     *
     * @param hdr the header each segment starts with
     * @param mss the maximum segment size, bytes
     * @see "ibv_wr_post(3) ibv_wr_send_tso"
     */
    void sendTso(MemorySegment hdr, int mss);

    /**
     * {@code ibv_wr_flush}: make prior writes to the range durable at the given point (rdma-core 45+).
     * RC, XRC_SEND.
     *
     * @param rkey the remote region's or window's rkey
     * @param remoteAddr the start of the range
     * @param len bytes
     * @param type {@link Flush#TYPE_GLOBAL} or {@link Flush#TYPE_PERSISTENT}
     * @param level {@link Flush#LEVEL_RANGE} or {@link Flush#LEVEL_MR}
     */
    void flush(int rkey, long remoteAddr, long len, int type, int level);

    // ---- setters of the last WR ----

    /**
     * {@code ibv_wr_set_sge}: one buffer. {@code length} is unsigned 32-bit, bytes.
     *
     * @param lkey the local region's lkey
     * @param addr the buffer's address
     * @param length its length, bytes
     * @see "ibv_wr_post(3) ibv_wr_set_sge"
     */
    void setSge(int lkey, long addr, int length);

    /**
     * {@code ibv_wr_set_sge_list}: the first {@code count} buffers, logically concatenated.
     *
     * @param sges the array of buffers
     * @param count how many of its entries to use
     * @see "ibv_wr_post(3) ibv_wr_set_sge_list"
     */
    void setSgeList(Sge[] sges, int count);

    /**
     * {@code ibv_wr_set_inline_data}: copies {@code data} now; the caller may reuse it at once. The
     * segment may be heap or native. Valid only for SEND and RDMA WRITE.
     *
     * @param data the bytes to send
     * @see "ibv_wr_post(3) ibv_wr_set_inline_data"
     */
    void setInlineData(MemorySegment data);

    /**
     * {@code ibv_wr_set_inline_data_list}: copies the first {@code count} segments, concatenated, now.
     *
     * @param buffers the array of segments
     * @param count how many of its entries to use
     * @see "ibv_wr_post(3) ibv_wr_set_inline_data_list"
     */
    void setInlineDataList(MemorySegment[] buffers, int count);

    /**
     * {@code ibv_wr_set_ud_addr}: the destination of a UD WR; mandatory on UD.
     *
     * @param ah the address handle of the remote port
     * @param remoteQpn the remote QP number, 24-bit; one of 2^24 or more, or negative, makes {@link #complete()}
     *     fail with {@code EINVAL} (a QPN is the 24-bit DestQP of the BTH, IBA 9.2)
     * @param remoteQkey the remote QP's Q_Key
     * @see "ibv_wr_post(3) ibv_wr_set_ud_addr"
     */
    void setUdAddr(AddressHandle ah, int remoteQpn, int remoteQkey);

    /**
     * {@code ibv_wr_set_xrc_srqn}: the destination SRQ; mandatory on XRC_SEND.
     *
     * @param remoteSrqn the remote SRQ number
     * @see "ibv_wr_post(3) ibv_wr_set_xrc_srqn"
     */
    void setXrcSrqn(int remoteSrqn);

    // ---- end of the session ----

    /**
     * {@code ibv_wr_complete}: posts every WR built since {@code startWr()} and closes the session.
     *
     * @throws VerbsException with the errno ({@code EINVAL}, {@code ENOMEM}, {@code EOPNOTSUPP}) if any WR
     *     was invalid or the send queue lacks room; then no WR of the batch was posted and the session is
     *     closed
     * @throws IllegalStateException if the session is not open, or is open in another thread (then nothing
     *     changes)
     * @see "ibv_wr_post(3) ibv_wr_complete"
     */
    void complete();

    /**
     * {@code ibv_wr_abort}: discards every WR built since {@code startWr()} and closes the session.
     *
     * @throws IllegalStateException if the session is not open, or is open in another thread (then nothing
     *     changes)
     * @see "ibv_wr_post(3) ibv_wr_abort"
     */
    void abort();

    /** Aborts the session if it is still open; otherwise does nothing. */
    @Override
    void close();
}
