package org.verbs4j;

/**
 * The {@code type} and {@code level} arguments of {@link WrSession#flush}, from {@code verbs.h}
 * (rdma-core 45+).
 *
 * @see "ibv_wr_post(3)"
 */
public final class Flush {
    /** Flush to the global visibility point. */
    public static final int TYPE_GLOBAL = 1;
    /** Flush to the persistence point. */
    public static final int TYPE_PERSISTENT = 1 << 1;
    /** Flush the given range. */
    public static final int LEVEL_RANGE = 0;
    /** Flush the whole memory region. */
    public static final int LEVEL_MR = 1;

    private Flush() {}
}
