package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_recv_wr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvRecvWr {
    /** The C struct. */
    public static final String C_NAME = "ibv_recv_wr";
    /** {@code sizeof(struct ibv_recv_wr)}, bytes. */
    public static final long SIZEOF = 32;
    public static final long wr_id$OFFSET = 0;
    public static final long next$OFFSET = 8;
    public static final long sg_list$OFFSET = 16;
    public static final long num_sge$OFFSET = 24;

    private IbvRecvWr() {}
}
