package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_qp_cap} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvQpCap {
    /** The C struct. */
    public static final String C_NAME = "ibv_qp_cap";
    /** {@code sizeof(struct ibv_qp_cap)}, bytes. */
    public static final long SIZEOF = 20;
    public static final long max_send_wr$OFFSET = 0;
    public static final long max_recv_wr$OFFSET = 4;
    public static final long max_send_sge$OFFSET = 8;
    public static final long max_recv_sge$OFFSET = 12;
    public static final long max_inline_data$OFFSET = 16;

    private IbvQpCap() {}
}
