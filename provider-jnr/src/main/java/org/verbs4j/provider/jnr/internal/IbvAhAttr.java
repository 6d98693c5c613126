package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_ah_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvAhAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_ah_attr";
    /** {@code sizeof(struct ibv_ah_attr)}, bytes. */
    public static final long SIZEOF = 32;
    public static final long grh$dgid$OFFSET = 0;
    public static final long grh$flow_label$OFFSET = 16;
    public static final long grh$sgid_index$OFFSET = 20;
    public static final long grh$hop_limit$OFFSET = 21;
    public static final long grh$traffic_class$OFFSET = 22;
    public static final long dlid$OFFSET = 24;
    public static final long sl$OFFSET = 26;
    public static final long src_path_bits$OFFSET = 27;
    public static final long static_rate$OFFSET = 28;
    public static final long is_global$OFFSET = 29;
    public static final long port_num$OFFSET = 30;

    private IbvAhAttr() {}
}
