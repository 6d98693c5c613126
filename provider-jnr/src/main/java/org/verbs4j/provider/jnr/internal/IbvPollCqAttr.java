package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_poll_cq_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte
 * offsets named after the C fields. LayoutTest checks every value against the installed header with a compiled C
 * program. {@code ibv_start_poll} takes it zeroed.
 */
public final class IbvPollCqAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_poll_cq_attr";
    /** {@code sizeof(struct ibv_poll_cq_attr)}, bytes. */
    public static final long SIZEOF = 4;
    public static final long comp_mask$OFFSET = 0;

    private IbvPollCqAttr() {}
}
