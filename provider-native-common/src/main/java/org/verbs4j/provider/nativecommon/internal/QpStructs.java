package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.CLayout.ANONYMOUS;
import static org.verbs4j.provider.nativecommon.internal.CLayout.cond;
import static org.verbs4j.provider.nativecommon.internal.CLayout.gid;
import static org.verbs4j.provider.nativecommon.internal.CLayout.mutex;
import static org.verbs4j.provider.nativecommon.internal.CLayout.ptr;
import static org.verbs4j.provider.nativecommon.internal.CLayout.struct;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u16;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u32;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u64;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u8;
import static org.verbs4j.provider.nativecommon.internal.CLayout.union;

/**
 * The queue-pair structs of {@code infiniband/verbs.h}: {@code ibv_qp}, {@code ibv_qp_ex} with its WR-session
 * function pointers, the create, open, modify and query arguments, the work requests, and the SRQ structs.
 *
 * <p>Each nested class, named after its C struct, holds the struct's {@code DESC} (the layout as rdma-core 44
 * declares it on x86-64), {@code SIZEOF} and the byte offset {@code path$off} of each field the bindings use,
 * the C path's dots written as {@code $}. They are {@code static final}, so the JIT folds them.
 * {@code StructLayoutTest} checks every size and offset against the installed header with gcc.
 */
public final class QpStructs {
    private QpStructs() {}

    /** {@code struct ibv_global_route}. */
    public static final class ibv_global_route {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_global_route",
            gid("dgid"), u32("flow_label"), u8("sgid_index"), u8("hop_limit"), u8("traffic_class"));
        /** {@code sizeof(struct ibv_global_route)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private ibv_global_route() {}
    }

    /** {@code struct ibv_ah_attr}. */
    public static final class ibv_ah_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_ah_attr",
            ibv_global_route.DESC.withName("grh"), u16("dlid"), u8("sl"), u8("src_path_bits"), u8("static_rate"),
            u8("is_global"), u8("port_num"));
        /** {@code sizeof(struct ibv_ah_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long grh$dgid$off = DESC.offset("grh.dgid");
        public static final long grh$flow_label$off = DESC.offset("grh.flow_label");
        public static final long grh$sgid_index$off = DESC.offset("grh.sgid_index");
        public static final long grh$hop_limit$off = DESC.offset("grh.hop_limit");
        public static final long grh$traffic_class$off = DESC.offset("grh.traffic_class");
        public static final long dlid$off = DESC.offset("dlid");
        public static final long sl$off = DESC.offset("sl");
        public static final long src_path_bits$off = DESC.offset("src_path_bits");
        public static final long static_rate$off = DESC.offset("static_rate");
        public static final long is_global$off = DESC.offset("is_global");
        public static final long port_num$off = DESC.offset("port_num");

        private ibv_ah_attr() {}
    }

    /** {@code struct ibv_qp_cap}. */
    public static final class ibv_qp_cap {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_qp_cap",
            u32("max_send_wr"), u32("max_recv_wr"), u32("max_send_sge"), u32("max_recv_sge"),
            u32("max_inline_data"));
        /** {@code sizeof(struct ibv_qp_cap)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long max_send_wr$off = DESC.offset("max_send_wr");
        public static final long max_recv_wr$off = DESC.offset("max_recv_wr");
        public static final long max_send_sge$off = DESC.offset("max_send_sge");
        public static final long max_recv_sge$off = DESC.offset("max_recv_sge");
        public static final long max_inline_data$off = DESC.offset("max_inline_data");

        private ibv_qp_cap() {}
    }

    /** {@code struct ibv_qp}. */
    public static final class ibv_qp {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_qp",
                ptr("context"), ptr("qp_context"), ptr("pd"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"),
                u32("handle"), u32("qp_num"), u32("state"), u32("qp_type"), mutex("mutex"), cond("cond"),
                u32("events_completed"));
        /** {@code sizeof(struct ibv_qp)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long qp_num$off = DESC.offset("qp_num");
        public static final long state$off = DESC.offset("state");

        private ibv_qp() {}
    }

    /**
     * {@code struct ibv_qp_ex} as rdma-core 44 declares it, up to {@code wr_atomic_write}. rdma-core 45
     * appends {@code wr_flush} right after it, at {@link #wr_flush$off}; read it only when the installed
     * library is 45 or later.
     */
    public static final class ibv_qp_ex {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_qp_ex",
                ibv_qp.DESC.withName("qp_base"), u64("comp_mask"), u64("wr_id"), u32("wr_flags"),
                ptr("wr_atomic_cmp_swp"), ptr("wr_atomic_fetch_add"), ptr("wr_bind_mw"), ptr("wr_local_inv"),
                ptr("wr_rdma_read"), ptr("wr_rdma_write"), ptr("wr_rdma_write_imm"), ptr("wr_send"),
                ptr("wr_send_imm"), ptr("wr_send_inv"), ptr("wr_send_tso"), ptr("wr_set_ud_addr"),
                ptr("wr_set_xrc_srqn"), ptr("wr_set_inline_data"), ptr("wr_set_inline_data_list"), ptr("wr_set_sge"),
                ptr("wr_set_sge_list"), ptr("wr_start"), ptr("wr_complete"), ptr("wr_abort"), ptr("wr_atomic_write"));
        /** {@code sizeof(struct ibv_qp_ex)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long wr_id$off = DESC.offset("wr_id");
        public static final long wr_flags$off = DESC.offset("wr_flags");
        public static final long wr_atomic_cmp_swp$off = DESC.offset("wr_atomic_cmp_swp");
        public static final long wr_atomic_fetch_add$off = DESC.offset("wr_atomic_fetch_add");
        public static final long wr_bind_mw$off = DESC.offset("wr_bind_mw");
        public static final long wr_local_inv$off = DESC.offset("wr_local_inv");
        public static final long wr_rdma_read$off = DESC.offset("wr_rdma_read");
        public static final long wr_rdma_write$off = DESC.offset("wr_rdma_write");
        public static final long wr_rdma_write_imm$off = DESC.offset("wr_rdma_write_imm");
        public static final long wr_send$off = DESC.offset("wr_send");
        public static final long wr_send_imm$off = DESC.offset("wr_send_imm");
        public static final long wr_send_inv$off = DESC.offset("wr_send_inv");
        public static final long wr_send_tso$off = DESC.offset("wr_send_tso");
        public static final long wr_set_ud_addr$off = DESC.offset("wr_set_ud_addr");
        public static final long wr_set_xrc_srqn$off = DESC.offset("wr_set_xrc_srqn");
        public static final long wr_set_inline_data$off = DESC.offset("wr_set_inline_data");
        public static final long wr_set_sge$off = DESC.offset("wr_set_sge");
        public static final long wr_set_sge_list$off = DESC.offset("wr_set_sge_list");
        public static final long wr_start$off = DESC.offset("wr_start");
        public static final long wr_complete$off = DESC.offset("wr_complete");
        public static final long wr_abort$off = DESC.offset("wr_abort");
        public static final long wr_atomic_write$off = DESC.offset("wr_atomic_write");
        /** Where rdma-core 45 and later keep {@code wr_flush}: the pointer after {@code wr_atomic_write}. */
        public static final long wr_flush$off = wr_atomic_write$off + 8;

        private ibv_qp_ex() {}
    }

    /** {@code struct ibv_qp_init_attr}: the arguments of {@code ibv_create_qp}. */
    public static final class ibv_qp_init_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_qp_init_attr",
                ptr("qp_context"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), ibv_qp_cap.DESC.withName("cap"),
                u32("qp_type"), u32("sq_sig_all"));
        /** {@code sizeof(struct ibv_qp_init_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long cap$off = DESC.offset("cap");

        private ibv_qp_init_attr() {}
    }

    /** {@code struct ibv_qp_init_attr_ex}. */
    public static final class ibv_qp_init_attr_ex {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_qp_init_attr_ex",
                ptr("qp_context"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), ibv_qp_cap.DESC.withName("cap"),
                u32("qp_type"), u32("sq_sig_all"), u32("comp_mask"), ptr("pd"), ptr("xrcd"), u32("create_flags"),
                u16("max_tso_header"), ptr("rwq_ind_tbl"),
                struct("ibv_rx_hash_conf", u8("rx_hash_function"), u8("rx_hash_key_len"), ptr("rx_hash_key"),
                        u64("rx_hash_fields_mask")).withName("rx_hash_conf"),
                u32("source_qpn"), u64("send_ops_flags"));
        /** {@code sizeof(struct ibv_qp_init_attr_ex)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long send_cq$off = DESC.offset("send_cq");
        public static final long recv_cq$off = DESC.offset("recv_cq");
        public static final long srq$off = DESC.offset("srq");
        public static final long cap$off = DESC.offset("cap");
        public static final long qp_type$off = DESC.offset("qp_type");
        public static final long sq_sig_all$off = DESC.offset("sq_sig_all");
        public static final long comp_mask$off = DESC.offset("comp_mask");
        public static final long pd$off = DESC.offset("pd");
        public static final long xrcd$off = DESC.offset("xrcd");
        public static final long max_tso_header$off = DESC.offset("max_tso_header");
        public static final long send_ops_flags$off = DESC.offset("send_ops_flags");

        private ibv_qp_init_attr_ex() {}
    }

    /** {@code struct ibv_qp_attr}. */
    public static final class ibv_qp_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_qp_attr",
                u32("qp_state"), u32("cur_qp_state"), u32("path_mtu"), u32("path_mig_state"), u32("qkey"),
                u32("rq_psn"), u32("sq_psn"), u32("dest_qp_num"), u32("qp_access_flags"), ibv_qp_cap.DESC.withName("cap"),
                ibv_ah_attr.DESC.withName("ah_attr"), ibv_ah_attr.DESC.withName("alt_ah_attr"), u16("pkey_index"),
                u16("alt_pkey_index"), u8("en_sqd_async_notify"), u8("sq_draining"), u8("max_rd_atomic"),
                u8("max_dest_rd_atomic"), u8("min_rnr_timer"), u8("port_num"), u8("timeout"), u8("retry_cnt"),
                u8("rnr_retry"), u8("alt_port_num"), u8("alt_timeout"), u32("rate_limit"));
        /** {@code sizeof(struct ibv_qp_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long qp_state$off = DESC.offset("qp_state");
        public static final long cur_qp_state$off = DESC.offset("cur_qp_state");
        public static final long path_mtu$off = DESC.offset("path_mtu");
        public static final long path_mig_state$off = DESC.offset("path_mig_state");
        public static final long qkey$off = DESC.offset("qkey");
        public static final long rq_psn$off = DESC.offset("rq_psn");
        public static final long sq_psn$off = DESC.offset("sq_psn");
        public static final long dest_qp_num$off = DESC.offset("dest_qp_num");
        public static final long qp_access_flags$off = DESC.offset("qp_access_flags");
        public static final long cap$off = DESC.offset("cap");
        public static final long ah_attr$off = DESC.offset("ah_attr");
        public static final long alt_ah_attr$off = DESC.offset("alt_ah_attr");
        public static final long pkey_index$off = DESC.offset("pkey_index");
        public static final long alt_pkey_index$off = DESC.offset("alt_pkey_index");
        public static final long en_sqd_async_notify$off = DESC.offset("en_sqd_async_notify");
        public static final long sq_draining$off = DESC.offset("sq_draining");
        public static final long max_rd_atomic$off = DESC.offset("max_rd_atomic");
        public static final long max_dest_rd_atomic$off = DESC.offset("max_dest_rd_atomic");
        public static final long min_rnr_timer$off = DESC.offset("min_rnr_timer");
        public static final long port_num$off = DESC.offset("port_num");
        public static final long timeout$off = DESC.offset("timeout");
        public static final long retry_cnt$off = DESC.offset("retry_cnt");
        public static final long rnr_retry$off = DESC.offset("rnr_retry");
        public static final long alt_port_num$off = DESC.offset("alt_port_num");
        public static final long alt_timeout$off = DESC.offset("alt_timeout");
        public static final long rate_limit$off = DESC.offset("rate_limit");

        private ibv_qp_attr() {}
    }

    /** {@code struct ibv_send_wr}. */
    public static final class ibv_send_wr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_send_wr",
                u64("wr_id"), ptr("next"), ptr("sg_list"), u32("num_sge"), u32("opcode"), u32("send_flags"),
                union(ANONYMOUS + "0", u32("imm_data"), u32("invalidate_rkey")),
                union("wr",
                        struct("rdma", u64("remote_addr"), u32("rkey")),
                        struct("atomic", u64("remote_addr"), u64("compare_add"), u64("swap"), u32("rkey")),
                        struct("ud", ptr("ah"), u32("remote_qpn"), u32("remote_qkey"))),
                union("qp_type", struct("xrc", u32("remote_srqn"))),
                union(ANONYMOUS + "1",
                        struct("bind_mw", ptr("mw"), u32("rkey"), MemoryStructs.ibv_mw_bind_info.DESC.withName("bind_info")),
                        struct("tso", ptr("hdr"), u16("hdr_sz"), u16("mss"))));
        /** {@code sizeof(struct ibv_send_wr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long wr_id$off = DESC.offset("wr_id");
        public static final long next$off = DESC.offset("next");
        public static final long sg_list$off = DESC.offset("sg_list");
        public static final long num_sge$off = DESC.offset("num_sge");
        public static final long opcode$off = DESC.offset("opcode");
        public static final long send_flags$off = DESC.offset("send_flags");
        public static final long imm_data$off = DESC.offset("$anon0.imm_data");
        public static final long invalidate_rkey$off = DESC.offset("$anon0.invalidate_rkey");
        public static final long wr$rdma$remote_addr$off = DESC.offset("wr.rdma.remote_addr");
        public static final long wr$rdma$rkey$off = DESC.offset("wr.rdma.rkey");
        public static final long wr$atomic$remote_addr$off = DESC.offset("wr.atomic.remote_addr");
        public static final long wr$atomic$compare_add$off = DESC.offset("wr.atomic.compare_add");
        public static final long wr$atomic$swap$off = DESC.offset("wr.atomic.swap");
        public static final long wr$atomic$rkey$off = DESC.offset("wr.atomic.rkey");
        public static final long wr$ud$ah$off = DESC.offset("wr.ud.ah");
        public static final long wr$ud$remote_qpn$off = DESC.offset("wr.ud.remote_qpn");
        public static final long wr$ud$remote_qkey$off = DESC.offset("wr.ud.remote_qkey");
        public static final long qp_type$xrc$remote_srqn$off = DESC.offset("qp_type.xrc.remote_srqn");
        public static final long bind_mw$mw$off = DESC.offset("$anon1.bind_mw.mw");
        public static final long bind_mw$rkey$off = DESC.offset("$anon1.bind_mw.rkey");
        public static final long bind_mw$bind_info$off = DESC.offset("$anon1.bind_mw.bind_info");
        public static final long tso$hdr$off = DESC.offset("$anon1.tso.hdr");
        public static final long tso$hdr_sz$off = DESC.offset("$anon1.tso.hdr_sz");
        public static final long tso$mss$off = DESC.offset("$anon1.tso.mss");

        private ibv_send_wr() {}
    }

    /** {@code struct ibv_recv_wr}. */
    public static final class ibv_recv_wr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_recv_wr",
                u64("wr_id"), ptr("next"), ptr("sg_list"), u32("num_sge"));
        /** {@code sizeof(struct ibv_recv_wr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long wr_id$off = DESC.offset("wr_id");
        public static final long next$off = DESC.offset("next");
        public static final long sg_list$off = DESC.offset("sg_list");
        public static final long num_sge$off = DESC.offset("num_sge");

        private ibv_recv_wr() {}
    }

    /** {@code struct ibv_ece}. */
    public static final class ibv_ece {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_ece", u32("vendor_id"), u32("options"), u32("comp_mask"));
        /** {@code sizeof(struct ibv_ece)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long vendor_id$off = DESC.offset("vendor_id");
        public static final long options$off = DESC.offset("options");
        public static final long comp_mask$off = DESC.offset("comp_mask");

        private ibv_ece() {}
    }

    /** {@code struct ibv_qp_rate_limit_attr}. */
    public static final class ibv_qp_rate_limit_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_qp_rate_limit_attr", u32("rate_limit"), u32("max_burst_sz"),
                u16("typical_pkt_sz"), u32("comp_mask"));
        /** {@code sizeof(struct ibv_qp_rate_limit_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long rate_limit$off = DESC.offset("rate_limit");
        public static final long max_burst_sz$off = DESC.offset("max_burst_sz");
        public static final long typical_pkt_sz$off = DESC.offset("typical_pkt_sz");

        private ibv_qp_rate_limit_attr() {}
    }

    /** {@code struct ibv_srq_attr}. */
    public static final class ibv_srq_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_srq_attr", u32("max_wr"), u32("max_sge"), u32("srq_limit"));
        /** {@code sizeof(struct ibv_srq_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long max_wr$off = DESC.offset("max_wr");
        public static final long max_sge$off = DESC.offset("max_sge");
        public static final long srq_limit$off = DESC.offset("srq_limit");

        private ibv_srq_attr() {}
    }

    /** {@code struct ibv_srq_init_attr}. */
    public static final class ibv_srq_init_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_srq_init_attr", ptr("srq_context"),
                ibv_srq_attr.DESC.withName("attr"));
        /** {@code sizeof(struct ibv_srq_init_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long attr$max_wr$off = DESC.offset("attr.max_wr");
        public static final long attr$max_sge$off = DESC.offset("attr.max_sge");
        public static final long attr$srq_limit$off = DESC.offset("attr.srq_limit");
        public static final long attr$off = DESC.offset("attr");

        private ibv_srq_init_attr() {}
    }

    /**
     * {@code struct ibv_srq_init_attr_ex}: the arguments of {@code ibv_create_srq_ex}, here for an XRC SRQ
     * ({@code IBV_SRQT_XRC} with its PD, XRC domain and CQ).
     */
    public static final class ibv_srq_init_attr_ex {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_srq_init_attr_ex", ptr("srq_context"),
                ibv_srq_attr.DESC.withName("attr"), u32("comp_mask"), u32("srq_type"), ptr("pd"), ptr("xrcd"),
                ptr("cq"), struct("ibv_tm_cap", u32("max_num_tags"), u32("max_ops")).withName("tm_cap"));
        /** {@code sizeof(struct ibv_srq_init_attr_ex)}, bytes. */
        public static final long SIZEOF = DESC.size();
        /** The embedded {@code struct ibv_srq_attr}, whose fields are {@link ibv_srq_attr}'s offsets from here. */
        public static final long attr$off = DESC.offset("attr");
        public static final long comp_mask$off = DESC.offset("comp_mask");
        public static final long srq_type$off = DESC.offset("srq_type");
        public static final long pd$off = DESC.offset("pd");
        public static final long xrcd$off = DESC.offset("xrcd");
        public static final long cq$off = DESC.offset("cq");
        /** {@code IBV_SRQ_INIT_ATTR_TYPE}. */
        public static final int IBV_SRQ_INIT_ATTR_TYPE = 1;
        /** {@code IBV_SRQ_INIT_ATTR_PD}. */
        public static final int IBV_SRQ_INIT_ATTR_PD = 1 << 1;
        /** {@code IBV_SRQ_INIT_ATTR_XRCD}. */
        public static final int IBV_SRQ_INIT_ATTR_XRCD = 1 << 2;
        /** {@code IBV_SRQ_INIT_ATTR_CQ}. */
        public static final int IBV_SRQ_INIT_ATTR_CQ = 1 << 3;
        /** {@code IBV_SRQT_XRC} of {@code enum ibv_srq_type}. */
        public static final int IBV_SRQT_XRC = 1;

        private ibv_srq_init_attr_ex() {}
    }

    /** {@code struct ibv_qp_open_attr}: the arguments of {@code ibv_open_qp}. */
    public static final class ibv_qp_open_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_qp_open_attr",
                u32("comp_mask"), u32("qp_num"), ptr("xrcd"), ptr("qp_context"), u32("qp_type"));
        /** {@code sizeof(struct ibv_qp_open_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long comp_mask$off = DESC.offset("comp_mask");
        public static final long qp_num$off = DESC.offset("qp_num");
        public static final long xrcd$off = DESC.offset("xrcd");
        public static final long qp_type$off = DESC.offset("qp_type");
        /** {@code IBV_QP_OPEN_ATTR_NUM}. */
        public static final int IBV_QP_OPEN_ATTR_NUM = 1;
        /** {@code IBV_QP_OPEN_ATTR_XRCD}. */
        public static final int IBV_QP_OPEN_ATTR_XRCD = 1 << 1;
        /** {@code IBV_QP_OPEN_ATTR_TYPE}. */
        public static final int IBV_QP_OPEN_ATTR_TYPE = 1 << 3;

        private ibv_qp_open_attr() {}
    }

    /** {@code struct ibv_srq}. */
    public static final class ibv_srq {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_srq",
                ptr("context"), ptr("srq_context"), ptr("pd"), u32("handle"), mutex("mutex"), cond("cond"),
                u32("events_completed"));
        /** {@code sizeof(struct ibv_srq)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private ibv_srq() {}
    }
}
