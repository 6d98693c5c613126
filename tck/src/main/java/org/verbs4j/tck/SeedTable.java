package org.verbs4j.tck;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;

/**
 * The opcode x QP-type tables of the seeds, transcribed here by hand from the man page text so that
 * the TCK does not take its expectations from the API it checks ({@link WrOpcode#isValidFor}).
 *
 * @see "ibv_post_send(3), the opcode table (seeds 001 and 002)"
 * @see "ibv_wr_post(3), WORK REQUESTS table (seed 000)"
 */
public final class SeedTable {
    private static final Map<WrOpcode, Set<QpType>> POST_SEND = new EnumMap<>(WrOpcode.class);
    private static final Map<WrOpcode, Set<QpType>> WR_BUILDERS = new EnumMap<>(WrOpcode.class);

    static {
        // ibv_post_send(3): columns UD | UC | RC | XRC_SEND | RAW_PACKET.
        POST_SEND.put(WrOpcode.SEND, EnumSet.of(QpType.UD, QpType.UC, QpType.RC, QpType.XRC_SEND, QpType.RAW_PACKET));
        POST_SEND.put(WrOpcode.SEND_WITH_IMM, EnumSet.of(QpType.UD, QpType.UC, QpType.RC, QpType.XRC_SEND));
        POST_SEND.put(WrOpcode.RDMA_WRITE, EnumSet.of(QpType.UC, QpType.RC, QpType.XRC_SEND));
        POST_SEND.put(WrOpcode.RDMA_WRITE_WITH_IMM, EnumSet.of(QpType.UC, QpType.RC, QpType.XRC_SEND));
        POST_SEND.put(WrOpcode.RDMA_READ, EnumSet.of(QpType.RC, QpType.XRC_SEND));
        POST_SEND.put(WrOpcode.ATOMIC_CMP_AND_SWP, EnumSet.of(QpType.RC, QpType.XRC_SEND));
        POST_SEND.put(WrOpcode.ATOMIC_FETCH_AND_ADD, EnumSet.of(QpType.RC, QpType.XRC_SEND));
        POST_SEND.put(WrOpcode.LOCAL_INV, EnumSet.of(QpType.UC, QpType.RC, QpType.XRC_SEND));
        POST_SEND.put(WrOpcode.BIND_MW, EnumSet.of(QpType.UC, QpType.RC, QpType.XRC_SEND));
        POST_SEND.put(WrOpcode.SEND_WITH_INV, EnumSet.of(QpType.UC, QpType.RC, QpType.XRC_SEND));
        POST_SEND.put(WrOpcode.TSO, EnumSet.of(QpType.UD, QpType.RAW_PACKET));

        // ibv_wr_post(3): "QP Type Supported" column; RD has no verbs QP type. SEND_WITH_IMM's "SRC SEND"
        // is the page's typo for XRC_SEND. ATOMIC_WRITE (rdma-core 44+) follows the atomics: RC, XRC_SEND.
        WR_BUILDERS.putAll(POST_SEND);
        WR_BUILDERS.put(WrOpcode.FLUSH, EnumSet.of(QpType.RC, QpType.XRC_SEND));
        WR_BUILDERS.put(WrOpcode.ATOMIC_WRITE, EnumSet.of(QpType.RC, QpType.XRC_SEND));
    }

    private SeedTable() {}

    /** {@return the opcodes of the {@code ibv_post_send(3)} table: every opcode but FLUSH and ATOMIC_WRITE} */
    public static Set<WrOpcode> postSendOpcodes() {
        return POST_SEND.keySet();
    }

    /**
     * Whether {@code ibv_post_send(3)}'s table marks a cell.
     *
     * @param op the opcode (the table's row)
     * @param type the QP type (its column)
     * @return true when the opcode may be posted on that QP type
     */
    public static boolean postSendAllows(WrOpcode op, QpType type) {
        Set<QpType> types = POST_SEND.get(op);
        return types != null && types.contains(type);
    }

    /**
     * Whether {@code ibv_wr_post(3)}'s table lets the builder of an opcode be used on a QP type.
     *
     * @param op the opcode whose {@code ibv_wr_*} builder is meant
     * @param type the QP type
     * @return true when the builder may be used on that QP type
     */
    public static boolean builderAllows(WrOpcode op, QpType type) {
        return WR_BUILDERS.get(op).contains(type);
    }
}
