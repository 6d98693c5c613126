package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_parent_domain_init_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvParentDomainInitAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_parent_domain_init_attr";
    /** {@code sizeof(struct ibv_parent_domain_init_attr)}, bytes. */
    public static final long SIZEOF = 48;
    public static final long pd$OFFSET = 0;
    public static final long td$OFFSET = 8;
    public static final long comp_mask$OFFSET = 16;
    public static final long alloc$OFFSET = 24;
    public static final long free$OFFSET = 32;
    public static final long pd_context$OFFSET = 40;

    private IbvParentDomainInitAttr() {}
}
