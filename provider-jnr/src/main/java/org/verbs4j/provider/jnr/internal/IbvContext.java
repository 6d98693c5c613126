package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_context} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvContext {
    /** The C struct. */
    public static final String C_NAME = "ibv_context";
    /** {@code sizeof(struct ibv_context)}, bytes. */
    public static final long SIZEOF = 328;
    public static final long device$OFFSET = 0;
    public static final long ops$alloc_mw$OFFSET = 64;
    public static final long ops$bind_mw$OFFSET = 72;
    public static final long ops$dealloc_mw$OFFSET = 80;
    public static final long ops$poll_cq$OFFSET = 96;
    public static final long ops$req_notify_cq$OFFSET = 104;
    public static final long ops$post_srq_recv$OFFSET = 168;
    public static final long ops$post_send$OFFSET = 208;
    public static final long ops$post_recv$OFFSET = 216;
    public static final long cmd_fd$OFFSET = 264;
    public static final long async_fd$OFFSET = 268;
    public static final long num_comp_vectors$OFFSET = 272;
    public static final long abi_compat$OFFSET = 320;

    private IbvContext() {}
}
