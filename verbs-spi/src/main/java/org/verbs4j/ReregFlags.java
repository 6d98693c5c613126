package org.verbs4j;

/**
 * What {@link MemoryRegion#reregister} changes, {@code enum ibv_rereg_mr_flags}: bits to OR together.
 *
 * @see "ibv_rereg_mr(3)"
 */
public final class ReregFlags {
    /** {@code IBV_REREG_MR_CHANGE_TRANSLATION}: the memory, its address and length. */
    public static final int CHANGE_TRANSLATION = 1;
    /** {@code IBV_REREG_MR_CHANGE_PD}: the protection domain. */
    public static final int CHANGE_PD = 1 << 1;
    /** {@code IBV_REREG_MR_CHANGE_ACCESS}: the access flags. */
    public static final int CHANGE_ACCESS = 1 << 2;
    /** Every flag. */
    public static final int ALL = CHANGE_TRANSLATION | CHANGE_PD | CHANGE_ACCESS;

    private ReregFlags() {}

    /**
     * Checks a set of flags.
     *
     * @param flags the bits
     * @return {@code flags}
     * @throws IllegalArgumentException if no bit is set, or a bit beyond {@link #ALL}
     */
    public static int validate(int flags) {
        if (flags == 0 || (flags & ~ALL) != 0) {
            throw new IllegalArgumentException("rereg flags 0x" + Integer.toHexString(flags) + ": give one or more of"
                    + " CHANGE_TRANSLATION, CHANGE_PD and CHANGE_ACCESS, and nothing else");
        }
        return flags;
    }
}
