package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_comp_channel} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvCompChannel {
    /** The C struct. */
    public static final String C_NAME = "ibv_comp_channel";
    /** {@code sizeof(struct ibv_comp_channel)}, bytes. */
    public static final long SIZEOF = 16;
    public static final long context$OFFSET = 0;
    public static final long fd$OFFSET = 8;
    public static final long refcnt$OFFSET = 12;

    private IbvCompChannel() {}
}
