package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_srq_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvSrqAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_srq_attr";
    /** {@code sizeof(struct ibv_srq_attr)}, bytes. */
    public static final long SIZEOF = 12;
    public static final long max_wr$OFFSET = 0;
    public static final long max_sge$OFFSET = 4;
    public static final long srq_limit$OFFSET = 8;

    private IbvSrqAttr() {}
}
