package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_qp_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvQpAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_qp_attr";
    /** {@code sizeof(struct ibv_qp_attr)}, bytes. */
    public static final long SIZEOF = 144;
    public static final long qp_state$OFFSET = 0;
    public static final long cur_qp_state$OFFSET = 4;
    public static final long path_mtu$OFFSET = 8;
    public static final long path_mig_state$OFFSET = 12;
    public static final long qkey$OFFSET = 16;
    public static final long rq_psn$OFFSET = 20;
    public static final long sq_psn$OFFSET = 24;
    public static final long dest_qp_num$OFFSET = 28;
    public static final long qp_access_flags$OFFSET = 32;
    public static final long cap$OFFSET = 36;
    public static final long ah_attr$OFFSET = 56;
    public static final long alt_ah_attr$OFFSET = 88;
    public static final long pkey_index$OFFSET = 120;
    public static final long alt_pkey_index$OFFSET = 122;
    public static final long en_sqd_async_notify$OFFSET = 124;
    public static final long sq_draining$OFFSET = 125;
    public static final long max_rd_atomic$OFFSET = 126;
    public static final long max_dest_rd_atomic$OFFSET = 127;
    public static final long min_rnr_timer$OFFSET = 128;
    public static final long port_num$OFFSET = 129;
    public static final long timeout$OFFSET = 130;
    public static final long retry_cnt$OFFSET = 131;
    public static final long rnr_retry$OFFSET = 132;
    public static final long alt_port_num$OFFSET = 133;
    public static final long alt_timeout$OFFSET = 134;
    public static final long rate_limit$OFFSET = 136;

    private IbvQpAttr() {}
}
