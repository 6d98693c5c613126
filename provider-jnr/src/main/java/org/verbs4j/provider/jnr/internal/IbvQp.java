package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_qp} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvQp {
    /** The C struct. */
    public static final String C_NAME = "ibv_qp";
    /** {@code sizeof(struct ibv_qp)}, bytes. */
    public static final long SIZEOF = 160;
    public static final long context$OFFSET = 0;
    public static final long qp_context$OFFSET = 8;
    public static final long pd$OFFSET = 16;
    public static final long send_cq$OFFSET = 24;
    public static final long recv_cq$OFFSET = 32;
    public static final long srq$OFFSET = 40;
    public static final long handle$OFFSET = 48;
    public static final long qp_num$OFFSET = 52;
    public static final long state$OFFSET = 56;
    public static final long qp_type$OFFSET = 60;

    private IbvQp() {}
}
