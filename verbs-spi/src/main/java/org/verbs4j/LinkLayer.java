package org.verbs4j;

/**
 * A port's link layer ({@code IBV_LINK_LAYER_*}).
 *
 * @see "ibv_query_port(3)"
 */
public enum LinkLayer {
    /** {@code IBV_LINK_LAYER_UNSPECIFIED}: the device did not say; treat it as InfiniBand. */
    UNSPECIFIED,
    /** {@code IBV_LINK_LAYER_INFINIBAND}: InfiniBand, addressed by LID. */
    INFINIBAND,
    /** {@code IBV_LINK_LAYER_ETHERNET}: RoCE or iWARP over Ethernet, addressed by GID. */
    ETHERNET;

    /** {@return the {@code IBV_LINK_LAYER_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * The link layer with the given value.
     *
     * @param value the {@code IBV_LINK_LAYER_*} value
     * @return the link layer
     * @throws IllegalArgumentException if no link layer has that value
     */
    public static LinkLayer of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no link layer has the value " + value);
        }
        return values()[value];
    }
}
