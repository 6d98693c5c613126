package org.verbs4j;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * A send work request's operation, {@code enum ibv_wr_opcode}, with the QP types that accept it and
 * its {@code IBV_QP_EX_WITH_*} bit for {@code send_ops_flags}.
 *
 * <p>The QP-type table is the binding one of {@code ibv_post_send(3)} and {@code ibv_wr_post(3)}:
 * an opcode outside it fails with {@code EINVAL} in {@code postSend}, and a builder outside it makes
 * QP creation fail when requested in {@code sendOps}.
 *
 * @see "ibv_post_send(3)"
 * @see "ibv_wr_post(3)"
 */
public enum WrOpcode {
    /** {@code IBV_WR_RDMA_WRITE}: write the gather list to remote memory. */
    RDMA_WRITE(0, 1 << 0, QpType.UC, QpType.RC, QpType.XRC_SEND),
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}: an RDMA WRITE that also consumes a receive at the responder, with immediate data. */
    RDMA_WRITE_WITH_IMM(1, 1 << 1, QpType.UC, QpType.RC, QpType.XRC_SEND),
    /** {@code IBV_WR_SEND}: send the gather list into the responder's next receive. */
    SEND(2, 1 << 2, QpType.UD, QpType.UC, QpType.RC, QpType.XRC_SEND, QpType.RAW_PACKET),
    /** {@code IBV_WR_SEND_WITH_IMM}: a SEND with 32 bits of immediate data. */
    SEND_WITH_IMM(3, 1 << 3, QpType.UD, QpType.UC, QpType.RC, QpType.XRC_SEND),
    /** {@code IBV_WR_RDMA_READ}: read remote memory into the scatter list. */
    RDMA_READ(4, 1 << 4, QpType.RC, QpType.XRC_SEND),
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}: compare 8 remote bytes and swap them if equal; the old value lands locally. */
    ATOMIC_CMP_AND_SWP(5, 1 << 5, QpType.RC, QpType.XRC_SEND),
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}: add to 8 remote bytes; the old value lands locally. */
    ATOMIC_FETCH_AND_ADD(6, 1 << 6, QpType.RC, QpType.XRC_SEND),
    /** {@code IBV_WR_LOCAL_INV}: invalidate a local memory window's or region's key. */
    LOCAL_INV(7, 1 << 7, QpType.UC, QpType.RC, QpType.XRC_SEND),
    /** {@code IBV_WR_BIND_MW}: bind a type 2 memory window. */
    BIND_MW(8, 1 << 8, QpType.UC, QpType.RC, QpType.XRC_SEND),
    /** {@code IBV_WR_SEND_WITH_INV}: a SEND that invalidates an rkey at the responder. */
    SEND_WITH_INV(9, 1 << 9, QpType.UC, QpType.RC, QpType.XRC_SEND),
    /** {@code IBV_WR_TSO}: a TCP segmentation offload send (UD and raw packet QPs). */
    TSO(10, 1 << 10, QpType.UD, QpType.RAW_PACKET),
    /** {@code ibv_wr_flush}: RC, RD and XRC_SEND; RD has no verbs QP type, so RC and XRC_SEND here. rdma-core 45+. */
    FLUSH(14, 1 << 11, QpType.RC, QpType.XRC_SEND),
    /** {@code ibv_wr_atomic_write}: an 8-byte atomic write. rdma-core 44+. */
    ATOMIC_WRITE(15, 1 << 12, QpType.RC, QpType.XRC_SEND);

    private final int value;
    private final int sendOpsFlag;
    private final Set<QpType> qpTypes;
    /** {@link #qpTypes} as bits by ordinal: {@link #isValidFor} is on the posting path. */
    private final int qpTypeBits;

    WrOpcode(int value, int sendOpsFlag, QpType first, QpType... rest) {
        this.value = value;
        this.sendOpsFlag = sendOpsFlag;
        this.qpTypes = Collections.unmodifiableSet(EnumSet.of(first, rest));
        int bits = 0;
        for (QpType t : qpTypes) {
            bits |= 1 << t.ordinal();
        }
        this.qpTypeBits = bits;
    }

    /** {@return the {@code IBV_WR_*} value} */
    public int value() {
        return value;
    }

    /** {@return the {@code IBV_QP_EX_WITH_*} bit that requests this operation in {@code send_ops_flags}} */
    public int sendOpsFlag() {
        return sendOpsFlag;
    }

    /** {@return the QP types that accept this opcode, per the seed table} */
    public Set<QpType> qpTypes() {
        return qpTypes;
    }

    /**
     * Whether a QP of a type accepts this opcode, per the seed table.
     *
     * @param type the QP type
     * @return true when {@code ibv_post_send(3)}'s table allows it
     */
    public boolean isValidFor(QpType type) {
        return type != null && (qpTypeBits & 1 << type.ordinal()) != 0;
    }

    /** {@return whether this operation carries data set with a DATA setter (SGE or inline)} */
    public boolean carriesData() {
        return switch (this) {
            case LOCAL_INV, BIND_MW -> false;
            default -> true;
        };
    }

    /** {@return whether inline data is valid for this operation: SEND and RDMA WRITE, with or without immediate} */
    public boolean allowsInline() {
        return switch (this) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE, RDMA_WRITE_WITH_IMM -> true;
            default -> false;
        };
    }

    /** {@return whether this operation is an atomic (8-byte operand on an 8-byte-aligned remote address)} */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD || this == ATOMIC_WRITE;
    }

    /**
     * The {@code send_ops_flags} of a set of opcodes.
     *
     * @param ops the opcodes
     * @return the OR of their {@code IBV_QP_EX_WITH_*} bits
     */
    public static long sendOpsFlags(Set<WrOpcode> ops) {
        long flags = 0;
        for (WrOpcode op : ops) {
            flags |= op.sendOpsFlag;
        }
        return flags;
    }

    /**
     * The opcode with the given {@code IBV_WR_*} value.
     *
     * @param value the {@code IBV_WR_*} value
     * @return the opcode
     * @throws IllegalArgumentException if no opcode has that value
     */
    public static WrOpcode of(int value) {
        for (WrOpcode op : values()) {
            if (op.value == value) {
                return op;
            }
        }
        throw new IllegalArgumentException("no ibv_wr_opcode has the value " + value);
    }
}
