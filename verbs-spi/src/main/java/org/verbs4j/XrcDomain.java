package org.verbs4j;

/**
 * An XRC domain, {@code struct ibv_xrcd}: the scope of the XRC shared receive queues and the XRC_RECV QPs that
 * deliver into them.
 *
 * <p>An XRC_SEND QP ({@link ProtectionDomain#createQp} with {@link QpType#XRC_SEND}) connects to one XRC_RECV QP
 * of a domain, as an RC QP connects to its peer, and names the SRQ of each message with
 * {@link SendWr#remoteSrqn(int)} or {@link WrSession#setXrcSrqn(int)}. The receiving QP delivers into that SRQ
 * if it belongs to the same domain: its receive WR, its CQ, and its protection domain, against which the lkeys
 * of the receive WRs and the rkeys of RDMA and atomic requests are checked. A message that names an SRQ outside
 * the domain is refused: the sender's WR completes with {@link WcStatus#REM_INV_REQ_ERR}. One sender thus
 * reaches every SRQ of a remote domain over one connection.
 *
 * @see "ibv_open_xrcd(3)"
 * @see "ibv_create_srq_ex(3)"
 * @see "ibv_open_qp(3)"
 */
public interface XrcDomain extends VerbsObject {
    /** {@code O_CREAT} of {@code open(2)}, for {@link Context#openXrcd(int, int)}: create the domain if needed. */
    int O_CREAT = 0100;
    /** {@code O_EXCL} of {@code open(2)}, for {@link Context#openXrcd(int, int)}: fail if it exists. */
    int O_EXCL = 0200;

    /** {@return the context the domain was opened on} */
    Context context();

    /**
     * Creates an XRC shared receive queue in this domain ({@code ibv_create_srq_ex} with {@code IBV_SRQT_XRC}).
     * Its number, {@link SharedReceiveQueue#srqNum()}, is what senders name.
     *
     * @param pd the protection domain of the SRQ's receive WRs and of the memory that requests to it reach
     * @param cq the CQ of its receive completions, whichever XRC_RECV QP delivered them
     * @param attributes its sizes and limit
     * @return the SRQ
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code pd} or {@code cq} is closed or belongs to another context
     * @throws IllegalStateException if the domain is closed
     * @throws VerbsException {@code EINVAL} beyond the device's SRQ limits, {@code ENOMEM}
     * @see "ibv_create_srq_ex(3)"
     */
    SharedReceiveQueue createSrq(ProtectionDomain pd, CompletionQueue cq, SrqInitAttributes attributes);

    /**
     * Creates an XRC_RECV QP in this domain ({@code ibv_create_qp_ex} with {@code IBV_QPT_XRC_RECV} and the
     * domain). It has no send or receive queue, no CQ and no protection domain ({@link QueuePair#pd()} is null): it
     * is moved to RTR like an RC QP (with {@code MAX_DEST_RD_ATOMIC} and {@code MIN_RNR_TIMER}) and delivers what
     * its connected XRC_SEND QP sends into the domain's SRQs. Posting to it fails with {@code EINVAL}.
     *
     * @return the QP, in RESET
     * @throws IllegalStateException if the domain is closed
     * @throws VerbsException {@code EOPNOTSUPP} if the device has no XRC, {@code ENOMEM}
     * @see "ibv_create_qp_ex(3)"
     */
    QueuePair createRecvQp();

    /**
     * Opens another handle on an XRC_RECV QP of this domain ({@code ibv_open_qp}), as a second process sharing the
     * domain does. The handle modifies, queries and closes like the QP it opens; the QP itself lives until its
     * creator's handle and every opened handle are closed.
     *
     * @param qpNum the QP's number, 24 bits
     * @return the new handle
     * @throws IllegalArgumentException if {@code qpNum} is not a 24-bit number
     * @throws IllegalStateException if the domain is closed
     * @throws VerbsException {@code EINVAL} if no XRC_RECV QP of this domain has that number
     * @see "ibv_open_qp(3)"
     */
    QueuePair openQp(int qpNum);

    /**
     * Closes the domain.
     *
     * @throws VerbsException {@code EBUSY} while an SRQ or XRC_RECV QP of it is open
     * @see "ibv_close_xrcd(3)"
     */
    @Override
    void close();
}
