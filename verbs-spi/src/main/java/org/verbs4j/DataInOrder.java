package org.verbs4j;

import java.util.EnumSet;
import java.util.Set;

/**
 * A data-in-order capability of {@code ibv_query_qp_data_in_order(3)}: how the receiving side writes
 * the data of one WQE. It never describes the order between separate WQEs.
 *
 * @see "ibv_query_qp_data_in_order(3)"
 */
public enum DataInOrder {
    /** {@code IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG}: all data of the WQE is written in order. */
    WHOLE_MSG(1),
    /** {@code IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES}: each 128-byte aligned block is written in order. */
    ALIGNED_128_BYTES(1 << 1);

    /** The {@code flags} value {@code IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS}: return the capability set. */
    public static final int RETURN_CAPS = 1;

    private final int bit;

    DataInOrder(int bit) {
        this.bit = bit;
    }

    /** {@return the capability's bit in the value returned with {@link #RETURN_CAPS}} */
    public int bit() {
        return bit;
    }

    /**
     * The capabilities in a {@link #RETURN_CAPS} result. Unknown bits are ignored.
     *
     * @param bits a {@link #RETURN_CAPS} result
     * @return the capabilities whose bits are set
     */
    public static Set<DataInOrder> fromBits(int bits) {
        Set<DataInOrder> set = EnumSet.noneOf(DataInOrder.class);
        for (DataInOrder c : values()) {
            if ((bits & c.bit) != 0) {
                set.add(c);
            }
        }
        return set;
    }

    /**
     * {@return the {@link #RETURN_CAPS} result for a capability set}
     *
     * @param caps the capabilities
     */
    public static int toBits(Set<DataInOrder> caps) {
        int bits = 0;
        for (DataInOrder c : caps) {
            bits |= c.bit;
        }
        return bits;
    }
}
