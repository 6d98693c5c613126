package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_srq_init_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvSrqInitAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_srq_init_attr";
    /** {@code sizeof(struct ibv_srq_init_attr)}, bytes. */
    public static final long SIZEOF = 24;
    public static final long srq_context$OFFSET = 0;
    public static final long attr$max_wr$OFFSET = 8;
    public static final long attr$max_sge$OFFSET = 12;
    public static final long attr$srq_limit$OFFSET = 16;

    private IbvSrqInitAttr() {}
}
