package org.verbs4j;

/**
 * One work completion, {@code struct ibv_wc}, as an immutable value. For polling without allocation
 * use {@link WorkCompletionBatch}'s accessors instead of {@link WorkCompletionBatch#get(int)}.
 *
 * @param wrId the WR's 64-bit ID
 * @param status the completion status; on anything but {@link WcStatus#SUCCESS} only {@code wrId},
 *     {@code status}, {@code qpNum} and {@code vendorErr} are valid
 * @param opcode the operation
 * @param vendorErr vendor syndrome
 * @param byteLen bytes transferred (receives, RDMA READ, atomics)
 * @param immData immediate data in host order when {@link WcFlags#WITH_IMM} is set; the invalidated
 *     rkey when {@link WcFlags#WITH_INV} is set
 * @param qpNum the local QP's 24-bit number
 * @param srcQp the remote QP's 24-bit number (UD)
 * @param wcFlags {@link WcFlags} bits
 * @param pkeyIndex P_Key index (GSI)
 * @param slid source LID (UD)
 * @param sl service level (UD)
 * @param dlidPathBits destination LID path bits (UD)
 * @param completionTimestamp the device's raw clock when it wrote the completion, 0 unless the CQ stamps
 *     completions ({@link WorkCompletionBatch#completionTimestamp})
 * @param completionWallclockNs that time as nanoseconds since the epoch, 0 unless the CQ stamps completions so
 *     ({@link WorkCompletionBatch#completionWallclockNs})
 * @see "ibv_poll_cq(3)"
 * @see "ibv_create_cq_ex(3)"
 */
public record WorkCompletion(
        long wrId,
        WcStatus status,
        WcOpcode opcode,
        int vendorErr,
        int byteLen,
        int immData,
        int qpNum,
        int srcQp,
        int wcFlags,
        int pkeyIndex,
        int slid,
        int sl,
        int dlidPathBits,
        long completionTimestamp,
        long completionWallclockNs) {

    /**
     * A completion without timestamps.
     *
     * @param wrId the WR's 64-bit ID
     * @param status the completion status
     * @param opcode the operation
     * @param vendorErr vendor syndrome
     * @param byteLen bytes transferred
     * @param immData immediate data in host order, or the invalidated rkey
     * @param qpNum the local QP's 24-bit number
     * @param srcQp the remote QP's 24-bit number (UD)
     * @param wcFlags {@link WcFlags} bits
     * @param pkeyIndex P_Key index (GSI)
     * @param slid source LID (UD)
     * @param sl service level (UD)
     * @param dlidPathBits destination LID path bits (UD)
     */
    public WorkCompletion(long wrId, WcStatus status, WcOpcode opcode, int vendorErr, int byteLen, int immData,
                          int qpNum, int srcQp, int wcFlags, int pkeyIndex, int slid, int sl, int dlidPathBits) {
        this(wrId, status, opcode, vendorErr, byteLen, immData, qpNum, srcQp, wcFlags, pkeyIndex, slid, sl,
                dlidPathBits, 0, 0);
    }

    /** {@return whether the completion carries immediate data} */
    public boolean hasImm() {
        return (wcFlags & WcFlags.WITH_IMM) != 0;
    }

    /** {@return whether the completion carries an invalidated rkey} */
    public boolean hasInvalidatedRkey() {
        return (wcFlags & WcFlags.WITH_INV) != 0;
    }
}
