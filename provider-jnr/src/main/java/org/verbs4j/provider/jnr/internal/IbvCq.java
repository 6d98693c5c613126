package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_cq} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvCq {
    /** The C struct. */
    public static final String C_NAME = "ibv_cq";
    /** {@code sizeof(struct ibv_cq)}, bytes. */
    public static final long SIZEOF = 128;
    public static final long context$OFFSET = 0;
    public static final long channel$OFFSET = 8;
    public static final long cq_context$OFFSET = 16;
    public static final long handle$OFFSET = 24;
    public static final long cqe$OFFSET = 28;

    private IbvCq() {}
}
