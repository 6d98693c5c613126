package org.verbs4j;

/**
 * The operation a work completion reports, {@code enum ibv_wc_opcode}. Receive-side opcodes have bit
 * 7 set ({@link #isReceive()}).
 *
 * @see "ibv_poll_cq(3)"
 */
public enum WcOpcode {
    /** {@code IBV_WC_SEND}: a SEND (with or without immediate or invalidate) completed. */
    SEND(0),
    /** {@code IBV_WC_RDMA_WRITE}: an RDMA WRITE (with or without immediate) completed. */
    RDMA_WRITE(1),
    /** {@code IBV_WC_RDMA_READ}: an RDMA READ completed. */
    RDMA_READ(2),
    /** {@code IBV_WC_COMP_SWAP}: an atomic compare and swap completed. */
    COMP_SWAP(3),
    /** {@code IBV_WC_FETCH_ADD}: an atomic fetch and add completed. */
    FETCH_ADD(4),
    /** {@code IBV_WC_BIND_MW}: a memory window bind completed. */
    BIND_MW(5),
    /** {@code IBV_WC_LOCAL_INV}: a local invalidate completed. */
    LOCAL_INV(6),
    /** {@code IBV_WC_TSO}: a TCP segmentation offload send completed. */
    TSO(7),
    /** rdma-core 45+. */
    FLUSH(8),
    /** {@code IBV_WC_ATOMIC_WRITE}: an 8-byte atomic write completed. rdma-core 44+. */
    ATOMIC_WRITE(9),
    /** {@code IBV_WC_RECV}: a receive consumed by a SEND (with or without immediate) completed. */
    RECV(128),
    /** {@code IBV_WC_RECV_RDMA_WITH_IMM}: a receive consumed by an RDMA WRITE with immediate completed. */
    RECV_RDMA_WITH_IMM(129),
    /** {@code IBV_WC_TM_ADD}: a tag was added to a tag-matching SRQ. */
    TM_ADD(130),
    /** {@code IBV_WC_TM_DEL}: a tag was removed from a tag-matching SRQ. */
    TM_DEL(131),
    /** {@code IBV_WC_TM_SYNC}: a tag-matching SRQ's tag list was synchronized. */
    TM_SYNC(132),
    /** {@code IBV_WC_TM_RECV}: a tagged message was received. */
    TM_RECV(133),
    /** {@code IBV_WC_TM_NO_TAG}: a message arrived that matched no tag. */
    TM_NO_TAG(134),
    /** {@code IBV_WC_DRIVER1}: reserved for the provider's driver. */
    DRIVER1(135),
    /** {@code IBV_WC_DRIVER2}: reserved for the provider's driver. */
    DRIVER2(136),
    /** {@code IBV_WC_DRIVER3}: reserved for the provider's driver. */
    DRIVER3(137);

    private static final WcOpcode[] BY_VALUE = new WcOpcode[256];

    static {
        for (WcOpcode op : values()) {
            BY_VALUE[op.value] = op;
        }
    }

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_WC_*} value} */
    public int value() {
        return value;
    }

    /** {@return whether this completes a receive ({@code opcode & IBV_WC_RECV})} */
    public boolean isReceive() {
        return (value & 128) != 0;
    }

    /**
     * The opcode with the given value.
     *
     * @param value the {@code IBV_WC_*} value
     * @return the opcode
     * @throws IllegalArgumentException if no opcode has that value
     */
    public static WcOpcode of(int value) {
        WcOpcode op = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (op == null) {
            throw new IllegalArgumentException("no ibv_wc_opcode has the value " + value);
        }
        return op;
    }

    /**
     * The completion opcode a successful send WR reports.
     *
     * @param op the send WR's opcode
     * @return the opcode of its completion
     */
    public static WcOpcode forSend(WrOpcode op) {
        return switch (op) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> SEND;
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> RDMA_WRITE;
            case RDMA_READ -> RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> FETCH_ADD;
            case LOCAL_INV -> LOCAL_INV;
            case BIND_MW -> BIND_MW;
            case TSO -> TSO;
            case FLUSH -> FLUSH;
            case ATOMIC_WRITE -> ATOMIC_WRITE;
        };
    }
}
