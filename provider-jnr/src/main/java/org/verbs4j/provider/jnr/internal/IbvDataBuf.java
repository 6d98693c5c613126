package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_data_buf} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvDataBuf {
    /** The C struct. */
    public static final String C_NAME = "ibv_data_buf";
    /** {@code sizeof(struct ibv_data_buf)}, bytes. */
    public static final long SIZEOF = 16;
    public static final long addr$OFFSET = 0;
    public static final long length$OFFSET = 8;

    private IbvDataBuf() {}
}
