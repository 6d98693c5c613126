package org.verbs4j;

/**
 * A completion queue, {@code struct ibv_cq}.
 *
 * <p>If completions arrive faster than they are polled and the CQ overflows, the device reports
 * {@link AsyncEventType#CQ_ERR} and the QPs that use it move to the error state.
 *
 * @see "ibv_create_cq(3)"
 * @see "ibv_poll_cq(3)"
 */
public interface CompletionQueue extends VerbsObject {
    /** {@return the context the CQ was created on} */
    Context context();

    /** {@return the number of entries the device granted, at least the number asked for} */
    int capacity();

    /** {@return the channel this CQ reports events to, or null} */
    CompletionChannel channel();

    /**
     * Moves up to {@code batch.capacity()} completions, oldest first, into {@code batch}. Allocates nothing.
     *
     * @param batch the batch to fill; it is cleared first
     * @return the number of completions, also {@code batch.size()}; 0 if none
     * @throws VerbsException the errno of {@code ibv_poll_cq} on a CQ error
     * @see "ibv_poll_cq(3)"
     * @see "ibv_create_cq_ex(3) ibv_start_poll ibv_next_poll ibv_end_poll"
     */
    int poll(WorkCompletionBatch batch);

    /**
     * Arms the CQ: the next completion (with {@code solicitedOnly}, the next solicited or error one)
     * produces one event on the channel.
     *
     * @param solicitedOnly true to wait for a solicited or error completion only
     * @throws IllegalStateException if the CQ has no channel
     * @see "ibv_req_notify_cq(3)"
     */
    void requestNotify(boolean solicitedOnly);

    /**
     * Sets the CQ's event moderation ({@code ibv_modify_cq} with {@code IBV_CQ_ATTR_MODERATE}): the device may hold
     * back the completion event of an armed CQ until {@code cqCount} completions have arrived or
     * {@code cqPeriodMicros} microseconds have passed, whichever comes first. 0 and 0 turn moderation off.
     * Completions themselves are never held back: {@link #poll} sees each one as soon as it is written.
     *
     * @param cqCount completions per event, 0 to {@link Capabilities#maxCqModerationCount()}
     * @param cqPeriodMicros the longest an event is held back, microseconds, 0 to
     *     {@link Capabilities#maxCqModerationPeriod()}
     * @throws VerbsException {@code EOPNOTSUPP} if the device has no CQ moderation
     *     ({@link Capabilities#cqModeration()} is false); {@code EINVAL} if a value is negative or above the
     *     device's {@code cq_mod_caps}
     * @throws IllegalStateException if the CQ is closed
     * @see "ibv_modify_cq(3)"
     * @see "ibv_query_device_ex(3) cq_mod_caps"
     */
    void modifyModeration(int cqCount, int cqPeriodMicros);

    /**
     * Resizes the CQ to hold at least {@code cqe} completions. The completions it holds stay in it and poll in
     * the order they arrived; it keeps serving its QPs and its completion channel. The device may grant more
     * entries than asked (rxe rounds up to a power of two minus one), so use the answer, also
     * {@link #capacity()} from now on.
     *
     * @param cqe the least number of completions it is to hold, 1 up to {@link DeviceAttributes#maxCqe()}
     * @return the number of entries the device granted, at least {@code cqe}
     * @throws IllegalArgumentException if {@code cqe} is below 1
     * @throws IllegalStateException if the CQ is closed
     * @throws VerbsException {@code EINVAL} if {@code cqe} exceeds {@link DeviceAttributes#maxCqe()} or is below
     *     the number of completions the CQ holds now (none of them is lost); {@code ENOMEM} if the device has no
     *     memory for the new queue; {@code EOPNOTSUPP} if the device cannot resize a CQ
     * @see "ibv_resize_cq(3)"
     */
    int resize(int cqe);

    /**
     * Destroys the CQ.
     *
     * @throws VerbsException {@code EBUSY} while a QP uses it
     * @see "ibv_destroy_cq(3)"
     */
    @Override
    void close();
}
