package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_cq_init_attr_ex} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte
 * offsets named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvCqInitAttrEx {
    /** The C struct. */
    public static final String C_NAME = "ibv_cq_init_attr_ex";
    /** {@code sizeof(struct ibv_cq_init_attr_ex)}, bytes. */
    public static final long SIZEOF = 56;
    public static final long cqe$OFFSET = 0;
    public static final long cq_context$OFFSET = 8;
    public static final long channel$OFFSET = 16;
    public static final long comp_vector$OFFSET = 24;
    public static final long wc_flags$OFFSET = 32;
    public static final long comp_mask$OFFSET = 40;
    public static final long flags$OFFSET = 44;
    public static final long parent_domain$OFFSET = 48;

    /**
     * {@code IBV_WC_STANDARD_FLAGS}: the {@code wc_flags} that make the {@code ibv_wc_read_*} functions for the
     * fields of {@code struct ibv_wc} available (BYTE_LEN, IMM, QP_NUM, SRC_QP, SLID, SL, DLID_PATH_BITS).
     */
    public static final long WC_STANDARD_FLAGS = 0x7f;

    private IbvCqInitAttrEx() {}
}
