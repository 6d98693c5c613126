package org.verbs4j;

/**
 * A QP's work queue sizes, {@code struct ibv_qp_cap}. On creation these are the minimums asked for;
 * {@link QueuePair#initAttributes()} and {@link QueuePair#query()} give what the device granted,
 * which may be larger.
 *
 * @param maxSendWr outstanding send WRs
 * @param maxRecvWr outstanding receive WRs (0 with an SRQ)
 * @param maxSendSge SGEs per send WR
 * @param maxRecvSge SGEs per receive WR
 * @param maxInlineData inline data per send WR, bytes
 * @see "ibv_create_qp(3)"
 */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    /**
     * Checks the sizes.
     *
     * @throws IllegalArgumentException if a size is negative
     */
    public QpCapabilities {
        if (maxSendWr < 0 || maxRecvWr < 0 || maxSendSge < 0 || maxRecvSge < 0 || maxInlineData < 0) {
            throw new IllegalArgumentException("QP capabilities cannot be negative: " + this);
        }
    }
}
