package org.verbs4j;

import java.util.List;

/**
 * A shared receive queue, {@code struct ibv_srq}: one pool of receive WRs for many QPs.
 *
 * @see "ibv_create_srq(3)"
 */
public interface SharedReceiveQueue extends VerbsObject {
    /** {@return the protection domain the SRQ was created in} */
    ProtectionDomain pd();

    /**
     * {@return the SRQ's 24-bit number (XRC)}
     *
     * @see "ibv_get_srq_num(3)"
     */
    int srqNum();

    /**
     * The current sizes and limit.
     *
     * @return the SRQ's sizes and armed limit
     * @see "ibv_query_srq(3)"
     */
    SrqInitAttributes query();

    /**
     * Arms the limit event: once fewer than {@code srqLimit} WRs are queued, one
     * {@link AsyncEventType#SRQ_LIMIT_REACHED} event fires and the limit is disarmed.
     *
     * @param srqLimit the number of queued WRs below which the event fires, 0 up to {@link #query()}'s
     *     {@code maxWr()}; 0 disarms the event, and {@link #query()} reports 0 while none is armed
     * @throws IllegalArgumentException if srqLimit is negative
     * @throws VerbsException {@code EINVAL} if srqLimit exceeds the queue's size
     * @see "ibv_modify_srq(3)"
     */
    void armLimit(int srqLimit);

    /**
     * Posts one receive WR.
     *
     * @param wr the receive WR; its SGEs are read during the call
     * @throws PostRecvException {@code ENOMEM} when the queue is full, {@code EINVAL} for too many SGEs
     * @see "ibv_post_srq_recv(3)"
     */
    void postRecv(RecvWr wr);

    /**
     * Posts receive WRs in order, stopping at the first that fails.
     *
     * @param wrs the receive WRs, in order
     * @throws PostRecvException with the index of the first WR not posted
     * @see "ibv_post_srq_recv(3)"
     */
    void postRecv(List<RecvWr> wrs);

    /**
     * Destroys the SRQ.
     *
     * @throws VerbsException {@code EBUSY} while a QP uses it
     * @see "ibv_destroy_srq(3)"
     */
    @Override
    void close();
}
