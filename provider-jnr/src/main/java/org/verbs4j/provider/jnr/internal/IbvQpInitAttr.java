package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_qp_init_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvQpInitAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_qp_init_attr";
    /** {@code sizeof(struct ibv_qp_init_attr)}, bytes. */
    public static final long SIZEOF = 64;
    public static final long qp_context$OFFSET = 0;
    public static final long send_cq$OFFSET = 8;
    public static final long recv_cq$OFFSET = 16;
    public static final long srq$OFFSET = 24;
    public static final long cap$OFFSET = 32;
    public static final long qp_type$OFFSET = 52;
    public static final long sq_sig_all$OFFSET = 56;

    private IbvQpInitAttr() {}
}
