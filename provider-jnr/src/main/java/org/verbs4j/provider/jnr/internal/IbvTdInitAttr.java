package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_td_init_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvTdInitAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_td_init_attr";
    /** {@code sizeof(struct ibv_td_init_attr)}, bytes. */
    public static final long SIZEOF = 4;
    public static final long comp_mask$OFFSET = 0;

    private IbvTdInitAttr() {}
}
