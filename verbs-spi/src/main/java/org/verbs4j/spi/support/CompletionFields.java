package org.verbs4j.spi.support;

/**
 * Which fields of a successful completion {@code ibv_poll_cq(3)} defines, for a provider that reads them one by one
 * (the {@code ibv_wc_read_*} ops of an extended CQ) and need not call a reader whose value is not defined.
 *
 * @see "ibv_poll_cq(3)"
 * @see "ibv_create_cq_ex(3)"
 */
public final class CompletionFields {
    /** {@code IBV_WC_RECV}: the bit of every receive-side {@code ibv_wc_opcode}. */
    private static final int WC_RECV = 128;

    private CompletionFields() {}

    /**
     * Whether a successful completion with this {@code ibv_wc_opcode} carries {@code src_qp}, {@code slid},
     * {@code sl} and {@code dlid_path_bits}. They describe the sender of a received message (the man page: "valid
     * only for UD QPs"), so a send-side completion has none; a provider reports 0 for them, as the kernel's plain
     * {@code ibv_wc} holds for a send.
     *
     * @param wcOpcode the completion's {@code ibv_wc_opcode} value
     * @return true for a receive-side opcode ({@code opcode & IBV_WC_RECV})
     */
    public static boolean hasSource(int wcOpcode) {
        return (wcOpcode & WC_RECV) != 0;
    }
}
