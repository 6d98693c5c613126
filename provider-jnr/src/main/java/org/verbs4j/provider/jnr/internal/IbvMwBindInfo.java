package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_mw_bind_info} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvMwBindInfo {
    /** The C struct. */
    public static final String C_NAME = "ibv_mw_bind_info";
    /** {@code sizeof(struct ibv_mw_bind_info)}, bytes. */
    public static final long SIZEOF = 32;
    public static final long mr$OFFSET = 0;
    public static final long addr$OFFSET = 8;
    public static final long length$OFFSET = 16;
    public static final long mw_access_flags$OFFSET = 24;

    private IbvMwBindInfo() {}
}
