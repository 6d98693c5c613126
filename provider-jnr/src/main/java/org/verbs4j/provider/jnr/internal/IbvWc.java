package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_wc} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvWc {
    /** The C struct. */
    public static final String C_NAME = "ibv_wc";
    /** {@code sizeof(struct ibv_wc)}, bytes. */
    public static final long SIZEOF = 48;
    public static final long wr_id$OFFSET = 0;
    public static final long status$OFFSET = 8;
    public static final long opcode$OFFSET = 12;
    public static final long vendor_err$OFFSET = 16;
    public static final long byte_len$OFFSET = 20;
    public static final long imm_data$OFFSET = 24;
    public static final long invalidated_rkey$OFFSET = 24;
    public static final long qp_num$OFFSET = 28;
    public static final long src_qp$OFFSET = 32;
    public static final long wc_flags$OFFSET = 36;
    public static final long pkey_index$OFFSET = 40;
    public static final long slid$OFFSET = 42;
    public static final long sl$OFFSET = 44;
    public static final long dlid_path_bits$OFFSET = 45;

    private IbvWc() {}
}
