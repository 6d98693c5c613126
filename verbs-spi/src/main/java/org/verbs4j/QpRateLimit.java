package org.verbs4j;

/**
 * A QP's send rate limit, {@code struct ibv_qp_rate_limit_attr}: the most the QP sends while its send queue has
 * work, shaped in bursts.
 *
 * @param rateLimit the rate, kilobits per second (1000 bits), an unsigned 32-bit value; 0 removes the limit
 * @param maxBurstSize the largest burst, bytes, an unsigned 32-bit value; 0 for the device's default
 * @param typicalPacketSize the typical packet, bytes, 0 to 65535; 0 for the device's default (the port's MTU)
 * @see "ibv_modify_qp_rate_limit(3)"
 */
public record QpRateLimit(int rateLimit, int maxBurstSize, int typicalPacketSize) {
    /** No limit: the QP sends as fast as the link lets it. */
    public static final QpRateLimit UNLIMITED = new QpRateLimit(0, 0, 0);

    /**
     * Checks the packet size.
     *
     * @throws IllegalArgumentException if {@code typicalPacketSize} is outside 0 to 65535 (its field is 16 bits)
     */
    public QpRateLimit {
        if (typicalPacketSize < 0 || typicalPacketSize > 0xffff) {
            throw new IllegalArgumentException("typicalPacketSize is 0 to 65535 bytes: " + typicalPacketSize);
        }
    }

    /** {@return the rate, kilobits per second, as the unsigned value it is} */
    public long rateKbps() {
        return Integer.toUnsignedLong(rateLimit);
    }

    /** {@return the largest burst, bytes, as the unsigned value it is} */
    public long maxBurstBytes() {
        return Integer.toUnsignedLong(maxBurstSize);
    }
}
