package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_port_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvPortAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_port_attr";
    /** {@code sizeof(struct ibv_port_attr)}, bytes. */
    public static final long SIZEOF = 52;
    public static final long state$OFFSET = 0;
    public static final long max_mtu$OFFSET = 4;
    public static final long active_mtu$OFFSET = 8;
    public static final long gid_tbl_len$OFFSET = 12;
    public static final long port_cap_flags$OFFSET = 16;
    public static final long max_msg_sz$OFFSET = 20;
    public static final long bad_pkey_cntr$OFFSET = 24;
    public static final long qkey_viol_cntr$OFFSET = 28;
    public static final long pkey_tbl_len$OFFSET = 32;
    public static final long lid$OFFSET = 34;
    public static final long sm_lid$OFFSET = 36;
    public static final long lmc$OFFSET = 38;
    public static final long max_vl_num$OFFSET = 39;
    public static final long sm_sl$OFFSET = 40;
    public static final long subnet_timeout$OFFSET = 41;
    public static final long init_type_reply$OFFSET = 42;
    public static final long active_width$OFFSET = 43;
    public static final long active_speed$OFFSET = 44;
    public static final long phys_state$OFFSET = 45;
    public static final long link_layer$OFFSET = 46;
    public static final long flags$OFFSET = 47;
    public static final long port_cap_flags2$OFFSET = 48;

    private IbvPortAttr() {}
}
