package org.verbs4j;

/**
 * Work completion flags, {@code enum ibv_wc_flags}, as the 32-bit mask of {@code verbs.h}.
 *
 * @see "ibv_poll_cq(3)"
 */
public final class WcFlags {
    /** A 40-byte GRH is present at the start of the receive buffer (UD). */
    public static final int GRH = 1;
    /** The completion carries immediate data. */
    public static final int WITH_IMM = 1 << 1;
    /** {@code IBV_WC_IP_CSUM_OK}: the received packet's IP checksum was verified. */
    public static final int IP_CSUM_OK = 1 << 2;
    /** The completion carries the rkey a SEND_WITH_INV invalidated. */
    public static final int WITH_INV = 1 << 3;
    /** {@code IBV_WC_TM_SYNC_REQ}: tag matching asks for a sync. */
    public static final int TM_SYNC_REQ = 1 << 4;
    /** {@code IBV_WC_TM_MATCH}: the message matched a tag. */
    public static final int TM_MATCH = 1 << 5;
    /** {@code IBV_WC_TM_DATA_VALID}: the tagged data was placed. */
    public static final int TM_DATA_VALID = 1 << 6;

    private WcFlags() {}
}
