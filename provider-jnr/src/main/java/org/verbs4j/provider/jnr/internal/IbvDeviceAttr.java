package org.verbs4j.provider.jnr.internal;

/**
 * The layout of {@code struct ibv_device_attr} on x86-64 as in rdma-core 44's {@code infiniband/verbs.h}: byte offsets
 * named after the C fields ({@code a$b} is {@code a.b}). LayoutTest checks every value against the installed
 * header with a compiled C program.
 */
public final class IbvDeviceAttr {
    /** The C struct. */
    public static final String C_NAME = "ibv_device_attr";
    /** {@code sizeof(struct ibv_device_attr)}, bytes. */
    public static final long SIZEOF = 232;
    public static final long fw_ver$OFFSET = 0;
    public static final long node_guid$OFFSET = 64;
    public static final long sys_image_guid$OFFSET = 72;
    public static final long max_mr_size$OFFSET = 80;
    public static final long page_size_cap$OFFSET = 88;
    public static final long vendor_id$OFFSET = 96;
    public static final long vendor_part_id$OFFSET = 100;
    public static final long hw_ver$OFFSET = 104;
    public static final long max_qp$OFFSET = 108;
    public static final long max_qp_wr$OFFSET = 112;
    public static final long device_cap_flags$OFFSET = 116;
    public static final long max_sge$OFFSET = 120;
    public static final long max_sge_rd$OFFSET = 124;
    public static final long max_cq$OFFSET = 128;
    public static final long max_cqe$OFFSET = 132;
    public static final long max_mr$OFFSET = 136;
    public static final long max_pd$OFFSET = 140;
    public static final long max_qp_rd_atom$OFFSET = 144;
    public static final long max_ee_rd_atom$OFFSET = 148;
    public static final long max_res_rd_atom$OFFSET = 152;
    public static final long max_qp_init_rd_atom$OFFSET = 156;
    public static final long max_ee_init_rd_atom$OFFSET = 160;
    public static final long atomic_cap$OFFSET = 164;
    public static final long max_ee$OFFSET = 168;
    public static final long max_rdd$OFFSET = 172;
    public static final long max_mw$OFFSET = 176;
    public static final long max_raw_ipv6_qp$OFFSET = 180;
    public static final long max_raw_ethy_qp$OFFSET = 184;
    public static final long max_mcast_grp$OFFSET = 188;
    public static final long max_mcast_qp_attach$OFFSET = 192;
    public static final long max_total_mcast_qp_attach$OFFSET = 196;
    public static final long max_ah$OFFSET = 200;
    public static final long max_fmr$OFFSET = 204;
    public static final long max_map_per_fmr$OFFSET = 208;
    public static final long max_srq$OFFSET = 212;
    public static final long max_srq_wr$OFFSET = 216;
    public static final long max_srq_sge$OFFSET = 220;
    public static final long max_pkeys$OFFSET = 224;
    public static final long local_ca_ack_delay$OFFSET = 226;
    public static final long phys_port_cnt$OFFSET = 227;

    private IbvDeviceAttr() {}
}
