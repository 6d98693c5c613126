package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_qp_ex} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvQpEx {
    /** The C struct. */
    public static final String C_NAME = "ibv_qp_ex";
    /** {@code sizeof(struct ibv_qp_ex)}, bytes. */
    public static final long SIZEOF = 352;
    public static final long qp_base$OFFSET = 0;
    public static final long comp_mask$OFFSET = 160;
    public static final long wr_id$OFFSET = 168;
    public static final long wr_flags$OFFSET = 176;
    public static final long wr_atomic_cmp_swp$OFFSET = 184;
    public static final long wr_atomic_fetch_add$OFFSET = 192;
    public static final long wr_bind_mw$OFFSET = 200;
    public static final long wr_local_inv$OFFSET = 208;
    public static final long wr_rdma_read$OFFSET = 216;
    public static final long wr_rdma_write$OFFSET = 224;
    public static final long wr_rdma_write_imm$OFFSET = 232;
    public static final long wr_send$OFFSET = 240;
    public static final long wr_send_imm$OFFSET = 248;
    public static final long wr_send_inv$OFFSET = 256;
    public static final long wr_send_tso$OFFSET = 264;
    public static final long wr_set_ud_addr$OFFSET = 272;
    public static final long wr_set_xrc_srqn$OFFSET = 280;
    public static final long wr_set_inline_data$OFFSET = 288;
    public static final long wr_set_inline_data_list$OFFSET = 296;
    public static final long wr_set_sge$OFFSET = 304;
    public static final long wr_set_sge_list$OFFSET = 312;
    public static final long wr_start$OFFSET = 320;
    public static final long wr_complete$OFFSET = 328;
    public static final long wr_abort$OFFSET = 336;
    public static final long wr_atomic_write$OFFSET = 344;

    private IbvQpEx() {}
}
