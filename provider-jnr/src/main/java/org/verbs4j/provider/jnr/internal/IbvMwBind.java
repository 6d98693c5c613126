package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_mw_bind} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvMwBind {
    /** The C struct. */
    public static final String C_NAME = "ibv_mw_bind";
    /** {@code sizeof(struct ibv_mw_bind)}, bytes. */
    public static final long SIZEOF = 48;
    public static final long wr_id$OFFSET = 0;
    public static final long send_flags$OFFSET = 8;
    public static final long bind_info$mr$OFFSET = 16;
    public static final long bind_info$addr$OFFSET = 24;
    public static final long bind_info$length$OFFSET = 32;
    public static final long bind_info$mw_access_flags$OFFSET = 40;

    private IbvMwBind() {}
}
