package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_qp_init_attr_ex} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvQpInitAttrEx {
    /** The C struct. */
    public static final String C_NAME = "ibv_qp_init_attr_ex";
    /** {@code sizeof(struct ibv_qp_init_attr_ex)}, bytes. */
    public static final long SIZEOF = 136;
    public static final long qp_context$OFFSET = 0;
    public static final long send_cq$OFFSET = 8;
    public static final long recv_cq$OFFSET = 16;
    public static final long srq$OFFSET = 24;
    public static final long cap$OFFSET = 32;
    public static final long qp_type$OFFSET = 52;
    public static final long sq_sig_all$OFFSET = 56;
    public static final long comp_mask$OFFSET = 60;
    public static final long pd$OFFSET = 64;
    public static final long xrcd$OFFSET = 72;
    public static final long create_flags$OFFSET = 80;
    public static final long max_tso_header$OFFSET = 84;
    public static final long rwq_ind_tbl$OFFSET = 88;
    public static final long rx_hash_conf$OFFSET = 96;
    public static final long source_qpn$OFFSET = 120;
    public static final long send_ops_flags$OFFSET = 128;

    private IbvQpInitAttrEx() {}
}
