package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_send_wr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvSendWr {
    /** The C struct. */
    public static final String C_NAME = "ibv_send_wr";
    /** {@code sizeof(struct ibv_send_wr)}, bytes. */
    public static final long SIZEOF = 128;
    public static final long wr_id$OFFSET = 0;
    public static final long next$OFFSET = 8;
    public static final long sg_list$OFFSET = 16;
    public static final long num_sge$OFFSET = 24;
    public static final long opcode$OFFSET = 28;
    public static final long send_flags$OFFSET = 32;
    public static final long imm_data$OFFSET = 36;
    public static final long invalidate_rkey$OFFSET = 36;
    public static final long wr$rdma$remote_addr$OFFSET = 40;
    public static final long wr$rdma$rkey$OFFSET = 48;
    public static final long wr$atomic$remote_addr$OFFSET = 40;
    public static final long wr$atomic$compare_add$OFFSET = 48;
    public static final long wr$atomic$swap$OFFSET = 56;
    public static final long wr$atomic$rkey$OFFSET = 64;
    public static final long wr$ud$ah$OFFSET = 40;
    public static final long wr$ud$remote_qpn$OFFSET = 48;
    public static final long wr$ud$remote_qkey$OFFSET = 52;
    public static final long qp_type$xrc$remote_srqn$OFFSET = 72;
    public static final long bind_mw$mw$OFFSET = 80;
    public static final long bind_mw$rkey$OFFSET = 88;
    public static final long bind_mw$bind_info$OFFSET = 96;
    public static final long tso$hdr$OFFSET = 80;
    public static final long tso$hdr_sz$OFFSET = 88;
    public static final long tso$mss$OFFSET = 90;

    private IbvSendWr() {}
}
