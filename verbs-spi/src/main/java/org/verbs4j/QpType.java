package org.verbs4j;

/**
 * A queue pair's transport service type, {@code enum ibv_qp_type}.
 *
 * @see "ibv_create_qp(3)"
 */
public enum QpType {
    /** Reliable connected. */
    RC(2),
    /** Unreliable connected: no RDMA READ, no atomics, no acknowledgements. */
    UC(3),
    /** Unreliable datagram: one MTU per message, a 40-byte GRH before every received payload. */
    UD(4),
    /** Raw Ethernet packets. */
    RAW_PACKET(8),
    /** XRC initiator (sending) side. */
    XRC_SEND(9),
    /** XRC target (receiving) side. */
    XRC_RECV(10);

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_QPT_*} value} */
    public int value() {
        return value;
    }

    /**
     * The type with the given {@code IBV_QPT_*} value.
     *
     * @param value the {@code IBV_QPT_*} value
     * @return the type
     * @throws IllegalArgumentException if no type has that value
     */
    public static QpType of(int value) {
        for (QpType t : values()) {
            if (t.value == value) {
                return t;
            }
        }
        throw new IllegalArgumentException("no ibv_qp_type has the value " + value);
    }
}
