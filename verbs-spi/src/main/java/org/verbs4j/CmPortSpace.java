package org.verbs4j;

/**
 * The port space of a {@link CmId}, {@code enum rdma_port_space}: which QP type its connections use and which
 * ports it shares.
 *
 * @see "rdma_create_id(3)"
 */
public enum CmPortSpace {
    /** {@code RDMA_PS_IPOIB} (0x0002): UD QPs sharing IPoIB's port space. */
    IPOIB(0x0002, QpType.UD),
    /** {@code RDMA_PS_TCP} (0x0106): reliable connected (RC) QPs. */
    TCP(0x0106, QpType.RC),
    /** {@code RDMA_PS_UDP} (0x0111): unreliable datagram (UD) QPs. */
    UDP(0x0111, QpType.UD),
    /** {@code RDMA_PS_IB} (0x013F): any InfiniBand QP type. */
    IB(0x013F, null);

    private final int value;
    private final QpType qpType;

    CmPortSpace(int value, QpType qpType) {
        this.value = value;
        this.qpType = qpType;
    }

    /** {@return the C value of {@code enum rdma_port_space}} */
    public int value() {
        return value;
    }

    /** {@return the QP type its ids use, or null for {@link #IB}, which takes any} */
    public QpType qpType() {
        return qpType;
    }
}
