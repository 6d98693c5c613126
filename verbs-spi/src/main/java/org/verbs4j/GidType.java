package org.verbs4j;

/**
 * The type of a GID table entry ({@code enum ibv_gid_type}): which header a packet sent from it carries.
 *
 * @see "ibv_query_gid_ex(3)"
 */
public enum GidType {
    /** {@code IBV_GID_TYPE_IB}: an InfiniBand GID, the GRH on an InfiniBand link. */
    IB,
    /** {@code IBV_GID_TYPE_ROCE_V1}: RoCE v1, the GRH in an Ethernet frame (ethertype 0x8915). */
    ROCE_V1,
    /** {@code IBV_GID_TYPE_ROCE_V2}: RoCE v2, an IPv4 or IPv6 header and UDP to port 4791. */
    ROCE_V2;

    /** {@return the {@code IBV_GID_TYPE_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The GID type with the given value.
     *
     * @param value the {@code IBV_GID_TYPE_*} value
     * @return the GID type
     * @throws IllegalArgumentException if no GID type has that value
     */
    public static GidType of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no GID type has the value " + value);
        }
        return values()[value];
    }
}
