package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct verbs_context} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class VerbsContext {
    /** The C struct. */
    public static final String C_NAME = "verbs_context";
    /** {@code sizeof(struct verbs_context)}, bytes. */
    public static final long SIZEOF = 648;
    public static final long query_port$OFFSET = 0;
    public static final long alloc_td$OFFSET = 128;
    public static final long dealloc_td$OFFSET = 120;
    public static final long query_device_ex$OFFSET = 216;
    public static final long create_cq_ex$OFFSET = 200;
    public static final long create_qp_ex$OFFSET = 264;
    public static final long get_srq_num$OFFSET = 272;
    public static final long alloc_parent_domain$OFFSET = 112;
    public static final long sz$OFFSET = 312;
    public static final long context$OFFSET = 320;

    private VerbsContext() {}
}
