package org.verbs4j;

import java.util.StringJoiner;

/**
 * Send work request flags, {@code enum ibv_send_flags}, as 32-bit masks with the values of
 * {@code verbs.h}. Used as {@link SendWr#sendFlags(int)} and {@link WrSession#wrFlags(int)}.
 *
 * @see "ibv_post_send(3)"
 * @see "ibv_wr_post(3)"
 */
public final class SendFlags {
    /** Do not start this WR until prior RDMA READ and atomic WRs complete. Valid only on RC. */
    public static final int FENCE = 1;
    /** Generate a completion for this WR. Relevant only when the QP was created with {@code sqSigAll} false. */
    public static final int SIGNALED = 1 << 1;
    /** Set the solicited bit. Valid only for SEND and RDMA WRITE with immediate. */
    public static final int SOLICITED = 1 << 2;
    /**
     * Copy the gather list as inline data; the lkey is not checked, but the addresses must lie in live regions
     * of the QP's protection domain ({@link QueuePair#postSend(SendWr)}). Valid only for SEND and RDMA WRITE.
     */
    public static final int INLINE = 1 << 3;
    /** Offload the IPv4 and TCP/UDP checksum. Valid only with the device capability. */
    public static final int IP_CSUM = 1 << 4;

    /** Every flag this API knows. */
    public static final int ALL = FENCE | SIGNALED | SOLICITED | INLINE | IP_CSUM;

    private SendFlags() {}

    /**
     * {@return the mask as {@code SIGNALED|INLINE}, or {@code 0}}
     *
     * @param flags {@link SendFlags} bits
     */
    public static String toString(int flags) {
        if (flags == 0) {
            return "0";
        }
        String[] names = {"FENCE", "SIGNALED", "SOLICITED", "INLINE", "IP_CSUM"};
        StringJoiner j = new StringJoiner("|");
        for (int i = 0; i < names.length; i++) {
            if ((flags & (1 << i)) != 0) {
                j.add(names[i]);
            }
        }
        if ((flags & ~ALL) != 0) {
            j.add("0x" + Integer.toHexString(flags & ~ALL));
        }
        return j.toString();
    }
}
