package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_async_event} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvAsyncEvent {
    /** The C struct. */
    public static final String C_NAME = "ibv_async_event";
    /** {@code sizeof(struct ibv_async_event)}, bytes. */
    public static final long SIZEOF = 16;
    public static final long element$cq$OFFSET = 0;
    public static final long element$qp$OFFSET = 0;
    public static final long element$srq$OFFSET = 0;
    public static final long element$port_num$OFFSET = 0;
    public static final long event_type$OFFSET = 8;

    private IbvAsyncEvent() {}
}
