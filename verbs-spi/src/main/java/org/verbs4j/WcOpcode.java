package org.verbs4j;

/**
 * The operation a work completion reports, {@code enum ibv_wc_opcode}. Receive-side opcodes have bit
 * 7 set ({@link #isReceive()}).
 *
 * @see "ibv_poll_cq(3)"
 */
public enum WcOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    COMP_SWAP(3),
    FETCH_ADD(4),
    BIND_MW(5),
    LOCAL_INV(6),
    TSO(7),
    /** rdma-core 45+. */
    FLUSH(8),
    ATOMIC_WRITE(9),
    RECV(128),
    RECV_RDMA_WITH_IMM(129),
    TM_ADD(130),
    TM_DEL(131),
    TM_SYNC(132),
    TM_RECV(133),
    TM_NO_TAG(134),
    DRIVER1(135),
    DRIVER2(136),
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
     * @throws IllegalArgumentException if no opcode has that value
     */
    public static WcOpcode of(int value) {
        WcOpcode op = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (op == null) {
            throw new IllegalArgumentException("no ibv_wc_opcode has the value " + value);
        }
        return op;
    }

    /** {@return the completion opcode a successful send WR of the given opcode reports} */
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
