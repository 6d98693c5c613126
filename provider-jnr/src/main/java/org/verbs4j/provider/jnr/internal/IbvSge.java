package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_sge} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvSge {
    /** The C struct. */
    public static final String C_NAME = "ibv_sge";
    /** {@code sizeof(struct ibv_sge)}, bytes. */
    public static final long SIZEOF = 16;
    public static final long addr$OFFSET = 0;
    public static final long length$OFFSET = 8;
    public static final long lkey$OFFSET = 12;

    private IbvSge() {}
}
