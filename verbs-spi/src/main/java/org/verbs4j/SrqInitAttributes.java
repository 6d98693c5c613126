package org.verbs4j;

/**
 * A shared receive queue's sizes, {@code struct ibv_srq_attr}.
 *
 * @param maxWr outstanding receive WRs
 * @param maxSge SGEs per receive WR
 * @param srqLimit the limit below which {@link AsyncEventType#SRQ_LIMIT_REACHED} fires once armed; 0 unarmed.
 *     {@code ibv_create_srq(3)} calls it irrelevant at creation, so its size is not checked against {@code maxWr}
 *     there (as rxe does); {@link SharedReceiveQueue#armLimit(int)} checks it
 * @see "ibv_create_srq(3)"
 * @see "ibv_modify_srq(3)"
 */
public record SrqInitAttributes(int maxWr, int maxSge, int srqLimit) {
    /**
     * Checks the sizes.
     *
     * @throws IllegalArgumentException unless {@code maxWr} and {@code maxSge} are positive and {@code srqLimit}
     *     is not negative
     */
    public SrqInitAttributes {
        if (maxWr <= 0 || maxSge <= 0 || srqLimit < 0) {
            throw new IllegalArgumentException("an SRQ needs maxWr > 0, maxSge > 0 and srqLimit >= 0: " + this);
        }
    }
}
