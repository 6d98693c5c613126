package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_cq_ex} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program. It begins with the fields of {@code struct ibv_cq}, so an {@code ibv_cq_ex *}
 * is also an {@code ibv_cq *} ({@code ibv_cq_ex_to_cq} is a cast).
 */
public final class IbvCqEx {
    /** The C struct. */
    public static final String C_NAME = "ibv_cq_ex";
    /** {@code sizeof(struct ibv_cq_ex)}, bytes. */
    public static final long SIZEOF = 288;
    public static final long cqe$OFFSET = 28;
    public static final long status$OFFSET = 132;
    public static final long wr_id$OFFSET = 136;
    public static final long start_poll$OFFSET = 144;
    public static final long next_poll$OFFSET = 152;
    public static final long end_poll$OFFSET = 160;
    public static final long read_opcode$OFFSET = 168;
    public static final long read_vendor_err$OFFSET = 176;
    public static final long read_byte_len$OFFSET = 184;
    public static final long read_imm_data$OFFSET = 192;
    public static final long read_qp_num$OFFSET = 200;
    public static final long read_src_qp$OFFSET = 208;
    public static final long read_wc_flags$OFFSET = 216;
    public static final long read_slid$OFFSET = 224;
    public static final long read_sl$OFFSET = 232;
    public static final long read_dlid_path_bits$OFFSET = 240;

    private IbvCqEx() {}
}
