package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_srq} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvSrq {
    /** The C struct. */
    public static final String C_NAME = "ibv_srq";
    /** {@code sizeof(struct ibv_srq)}, bytes. */
    public static final long SIZEOF = 128;
    public static final long context$OFFSET = 0;
    public static final long srq_context$OFFSET = 8;
    public static final long pd$OFFSET = 16;
    public static final long handle$OFFSET = 24;

    private IbvSrq() {}
}
