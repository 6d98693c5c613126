package org.verbs4j;

import java.util.StringJoiner;

/**
 * Memory access flags, {@code enum ibv_access_flags}, as 32-bit masks with the values of
 * {@code verbs.h}. Used to register memory, to bind memory windows and as a QP's remote access flags.
 *
 * @see "ibv_reg_mr(3)"
 */
public final class AccessFlags {
    /** The local side may write (needed with any remote write, atomic, or as a receive or READ target). */
    public static final int LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}: peers may RDMA WRITE; needs {@link #LOCAL_WRITE}. */
    public static final int REMOTE_WRITE = 1 << 1;
    /** {@code IBV_ACCESS_REMOTE_READ}: peers may RDMA READ. */
    public static final int REMOTE_READ = 1 << 2;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}: peers may run atomics; needs {@link #LOCAL_WRITE}. */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** A memory window may be bound to the region. */
    public static final int MW_BIND = 1 << 4;
    /** Addresses are offsets from the start of the region. */
    public static final int ZERO_BASED = 1 << 5;
    /** {@code IBV_ACCESS_ON_DEMAND}: on-demand paging; pages are pinned as the device touches them. */
    public static final int ON_DEMAND = 1 << 6;
    /** {@code IBV_ACCESS_HUGETLB}: the memory is backed by huge pages. */
    public static final int HUGETLB = 1 << 7;
    /** The region accepts FLUSH to the global visibility point (rdma-core 45+). */
    public static final int FLUSH_GLOBAL = 1 << 8;
    /** The region accepts FLUSH to the persistence point (rdma-core 45+). */
    public static final int FLUSH_PERSISTENT = 1 << 9;
    /** Optional: the device may relax PCIe ordering for this region. */
    public static final int RELAXED_ORDERING = 1 << 20;

    /** Every flag this API knows. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | MW_BIND
            | ZERO_BASED | ON_DEMAND | HUGETLB | FLUSH_GLOBAL | FLUSH_PERSISTENT | RELAXED_ORDERING;

    private static final String[] NAMES = {
        "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND",
        "ZERO_BASED", "ON_DEMAND", "HUGETLB", "FLUSH_GLOBAL", "FLUSH_PERSISTENT"
    };

    private AccessFlags() {}

    /**
     * Checks a mask as {@code ibv_reg_mr(3)} does: unknown bits are refused, and remote write or
     * remote atomic access requires local write.
     *
     * @param access {@link AccessFlags} bits
     * @return {@code access}, unchanged
     * @throws IllegalArgumentException naming the offending bits
     */
    public static int validate(int access) {
        if ((access & ~ALL) != 0) {
            throw new IllegalArgumentException("unknown access flag bits 0x" + Integer.toHexString(access & ~ALL));
        }
        if ((access & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (access & LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException(
                    "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE (ibv_reg_mr(3)): " + toString(access));
        }
        return access;
    }

    /**
     * {@return the mask as {@code LOCAL_WRITE|REMOTE_READ}, or {@code 0}}
     *
     * @param access {@link AccessFlags} bits
     */
    public static String toString(int access) {
        if (access == 0) {
            return "0";
        }
        StringJoiner j = new StringJoiner("|");
        for (int i = 0; i < NAMES.length; i++) {
            if ((access & (1 << i)) != 0) {
                j.add(NAMES[i]);
            }
        }
        if ((access & RELAXED_ORDERING) != 0) {
            j.add("RELAXED_ORDERING");
        }
        int unknown = access & ~ALL;
        if (unknown != 0) {
            j.add("0x" + Integer.toHexString(unknown));
        }
        return j.toString();
    }
}
