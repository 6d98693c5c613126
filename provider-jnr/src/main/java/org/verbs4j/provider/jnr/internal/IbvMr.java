package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_mr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvMr {
    /** The C struct. */
    public static final String C_NAME = "ibv_mr";
    /** {@code sizeof(struct ibv_mr)}, bytes. */
    public static final long SIZEOF = 48;
    public static final long context$OFFSET = 0;
    public static final long pd$OFFSET = 8;
    public static final long addr$OFFSET = 16;
    public static final long length$OFFSET = 24;
    public static final long handle$OFFSET = 32;
    public static final long lkey$OFFSET = 36;
    public static final long rkey$OFFSET = 40;

    private IbvMr() {}
}
