package org.verbs4j.provider.ffm.internal;

import static org.verbs4j.provider.ffm.internal.LayoutBuilder.chars;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.cond;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.gid;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.mutex;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.off;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.ptr;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.struct;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.u16;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.u32;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.u64;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.u8;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.union;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.vh;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * The libibverbs structs the provider reads and writes, laid out by hand with their C field names from
 * {@code infiniband/verbs.h} (rdma-core 44 and later). {@code StructLayoutTest} compiles a C program
 * against the installed header and checks every size and offset here.
 *
 * <p>Each nested class holds one struct's {@code LAYOUT} and the VarHandles ({@code field$vh},
 * coordinates: segment and base offset) or byte offsets ({@code field$off}) of the fields used.
 */
public final class Structs {
    private Structs() {}

    /** {@code union ibv_gid}: 16 raw bytes. */
    public static final long GID_SIZE = 16;

    static final MemoryLayout GLOBAL_ROUTE = struct("ibv_global_route",
            gid("dgid"), u32("flow_label"), u8("sgid_index"), u8("hop_limit"), u8("traffic_class"));

    static final MemoryLayout AH_ATTR = struct("ibv_ah_attr",
            GLOBAL_ROUTE.withName("grh"), u16("dlid"), u8("sl"), u8("src_path_bits"), u8("static_rate"),
            u8("is_global"), u8("port_num"));

    static final MemoryLayout QP_CAP = struct("ibv_qp_cap",
            u32("max_send_wr"), u32("max_recv_wr"), u32("max_send_sge"), u32("max_recv_sge"),
            u32("max_inline_data"));

    static final MemoryLayout MW_BIND_INFO = struct("ibv_mw_bind_info",
            ptr("mr"), u64("addr"), u64("length"), u32("mw_access_flags"));

    static final MemoryLayout SRQ_ATTR = struct("ibv_srq_attr", u32("max_wr"), u32("max_sge"), u32("srq_limit"));

    /** {@code struct ibv_device}. */
    public static final class ibv_device {
        public static final StructLayout LAYOUT = struct("ibv_device",
                struct("_ibv_device_ops", ptr("_dummy1"), ptr("_dummy2")).withName("_ops"),
                u32("node_type"), u32("transport_type"), chars("name", 64), chars("dev_name", 64),
                chars("dev_path", 256), chars("ibdev_path", 256));
    }

    /** {@code struct ibv_context_ops}: the data-path function pointers of a context. */
    public static final class ibv_context_ops {
        public static final StructLayout LAYOUT = struct("ibv_context_ops",
                ptr("_compat_query_device"), ptr("_compat_query_port"), ptr("_compat_alloc_pd"),
                ptr("_compat_dealloc_pd"), ptr("_compat_reg_mr"), ptr("_compat_rereg_mr"), ptr("_compat_dereg_mr"),
                ptr("alloc_mw"), ptr("bind_mw"), ptr("dealloc_mw"), ptr("_compat_create_cq"), ptr("poll_cq"),
                ptr("req_notify_cq"), ptr("_compat_cq_event"), ptr("_compat_resize_cq"), ptr("_compat_destroy_cq"),
                ptr("_compat_create_srq"), ptr("_compat_modify_srq"), ptr("_compat_query_srq"),
                ptr("_compat_destroy_srq"), ptr("post_srq_recv"), ptr("_compat_create_qp"), ptr("_compat_query_qp"),
                ptr("_compat_modify_qp"), ptr("_compat_destroy_qp"), ptr("post_send"), ptr("post_recv"),
                ptr("_compat_create_ah"), ptr("_compat_destroy_ah"), ptr("_compat_attach_mcast"),
                ptr("_compat_detach_mcast"), ptr("_compat_async_event"));
    }

    /** {@code struct ibv_context}. */
    public static final class ibv_context {
        public static final StructLayout LAYOUT = struct("ibv_context",
                ptr("device"), ibv_context_ops.LAYOUT.withName("ops"), u32("cmd_fd"), u32("async_fd"),
                u32("num_comp_vectors"), mutex("mutex"), ptr("abi_compat"));
        public static final long alloc_mw$off = off(LAYOUT, "ops.alloc_mw");
        public static final long bind_mw$off = off(LAYOUT, "ops.bind_mw");
        public static final long dealloc_mw$off = off(LAYOUT, "ops.dealloc_mw");
        public static final long poll_cq$off = off(LAYOUT, "ops.poll_cq");
        public static final long req_notify_cq$off = off(LAYOUT, "ops.req_notify_cq");
        public static final long post_srq_recv$off = off(LAYOUT, "ops.post_srq_recv");
        public static final long post_send$off = off(LAYOUT, "ops.post_send");
        public static final long post_recv$off = off(LAYOUT, "ops.post_recv");
        public static final VarHandle async_fd$vh = vh(LAYOUT, "async_fd");
        public static final VarHandle num_comp_vectors$vh = vh(LAYOUT, "num_comp_vectors");
        public static final long abi_compat$off = off(LAYOUT, "abi_compat");
    }

    /**
     * {@code struct verbs_context}: the extended ops, which sit in memory just before the
     * {@code ibv_context} a provider returns. An op is present when {@code sz} covers it
     * ({@code verbs_get_ctx_op}).
     */
    public static final class verbs_context {
        public static final StructLayout LAYOUT = struct("verbs_context",
                ptr("query_port"), ptr("advise_mr"), ptr("alloc_null_mr"), ptr("read_counters"),
                ptr("attach_counters_point_flow"), ptr("create_counters"), ptr("destroy_counters"), ptr("reg_dm_mr"),
                ptr("alloc_dm"), ptr("free_dm"), ptr("modify_flow_action_esp"), ptr("destroy_flow_action"),
                ptr("create_flow_action_esp"), ptr("modify_qp_rate_limit"), ptr("alloc_parent_domain"),
                ptr("dealloc_td"), ptr("alloc_td"), ptr("modify_cq"), ptr("post_srq_ops"),
                ptr("destroy_rwq_ind_table"), ptr("create_rwq_ind_table"), ptr("destroy_wq"), ptr("modify_wq"),
                ptr("create_wq"), ptr("query_rt_values"), ptr("create_cq_ex"), ptr("priv"), ptr("query_device_ex"),
                ptr("ibv_destroy_flow"), ptr("ABI_placeholder2"), ptr("ibv_create_flow"), ptr("ABI_placeholder1"),
                ptr("open_qp"), ptr("create_qp_ex"), ptr("get_srq_num"), ptr("create_srq_ex"), ptr("open_xrcd"),
                ptr("close_xrcd"), u64("_ABI_placeholder3"), u64("sz"), ibv_context.LAYOUT.withName("context"));
        /** Where {@code context} sits: subtract it from an {@code ibv_context} address to find the struct. */
        public static final long context$off = off(LAYOUT, "context");
        public static final long sz$off = off(LAYOUT, "sz");
        public static final long query_port$off = off(LAYOUT, "query_port");
        public static final long query_device_ex$off = off(LAYOUT, "query_device_ex");
        public static final long create_cq_ex$off = off(LAYOUT, "create_cq_ex");
        public static final long alloc_parent_domain$off = off(LAYOUT, "alloc_parent_domain");
        public static final long dealloc_td$off = off(LAYOUT, "dealloc_td");
        public static final long alloc_td$off = off(LAYOUT, "alloc_td");
        public static final long create_qp_ex$off = off(LAYOUT, "create_qp_ex");
        public static final long get_srq_num$off = off(LAYOUT, "get_srq_num");
    }

    /** {@code struct ibv_device_attr}. */
    public static final class ibv_device_attr {
        public static final StructLayout LAYOUT = struct("ibv_device_attr",
                chars("fw_ver", 64), u64("node_guid"), u64("sys_image_guid"), u64("max_mr_size"),
                u64("page_size_cap"), u32("vendor_id"), u32("vendor_part_id"), u32("hw_ver"), u32("max_qp"),
                u32("max_qp_wr"), u32("device_cap_flags"), u32("max_sge"), u32("max_sge_rd"), u32("max_cq"),
                u32("max_cqe"), u32("max_mr"), u32("max_pd"), u32("max_qp_rd_atom"), u32("max_ee_rd_atom"),
                u32("max_res_rd_atom"), u32("max_qp_init_rd_atom"), u32("max_ee_init_rd_atom"), u32("atomic_cap"),
                u32("max_ee"), u32("max_rdd"), u32("max_mw"), u32("max_raw_ipv6_qp"), u32("max_raw_ethy_qp"),
                u32("max_mcast_grp"), u32("max_mcast_qp_attach"), u32("max_total_mcast_qp_attach"), u32("max_ah"),
                u32("max_fmr"), u32("max_map_per_fmr"), u32("max_srq"), u32("max_srq_wr"), u32("max_srq_sge"),
                u16("max_pkeys"), u8("local_ca_ack_delay"), u8("phys_port_cnt"));
    }

    /** {@code struct ibv_device_attr_ex}, read for {@code device_cap_flags_ex} (atomic write, flush). */
    public static final class ibv_device_attr_ex {
        public static final StructLayout LAYOUT = struct("ibv_device_attr_ex",
                ibv_device_attr.LAYOUT.withName("orig_attr"), u32("comp_mask"),
                struct("ibv_odp_caps", u64("general_caps"), struct("per_transport_caps", u32("rc_odp_caps"),
                        u32("uc_odp_caps"), u32("ud_odp_caps")).withName("per_transport_caps"))
                        .withName("odp_caps"),
                u64("completion_timestamp_mask"), u64("hca_core_clock"), u64("device_cap_flags_ex"),
                struct("ibv_tso_caps", u32("max_tso"), u32("supported_qpts")).withName("tso_caps"),
                struct("ibv_rss_caps", u32("supported_qpts"), u32("max_rwq_indirection_tables"),
                        u32("max_rwq_indirection_table_size"), u64("rx_hash_fields_mask"), u8("rx_hash_function"))
                        .withName("rss_caps"),
                u32("max_wq_type_rq"),
                struct("ibv_packet_pacing_caps", u32("qp_rate_limit_min"), u32("qp_rate_limit_max"),
                        u32("supported_qpts")).withName("packet_pacing_caps"),
                u32("raw_packet_caps"),
                struct("ibv_tm_caps", u32("max_rndv_hdr_size"), u32("max_num_tags"), u32("flags"), u32("max_ops"),
                        u32("max_sge")).withName("tm_caps"),
                struct("ibv_cq_moderation_caps", u16("max_cq_count"), u16("max_cq_period")).withName("cq_mod_caps"),
                u64("max_dm_size"),
                struct("ibv_pci_atomic_caps", u16("fetch_add"), u16("swap"), u16("compare_swap"))
                        .withName("pci_atomic_caps"),
                u32("xrc_odp_caps"), u32("phys_port_cnt_ex"));
        public static final long device_cap_flags_ex$off = off(LAYOUT, "device_cap_flags_ex");
    }

    /** {@code struct ibv_port_attr}. */
    public static final class ibv_port_attr {
        public static final StructLayout LAYOUT = struct("ibv_port_attr",
                u32("state"), u32("max_mtu"), u32("active_mtu"), u32("gid_tbl_len"), u32("port_cap_flags"),
                u32("max_msg_sz"), u32("bad_pkey_cntr"), u32("qkey_viol_cntr"), u16("pkey_tbl_len"), u16("lid"),
                u16("sm_lid"), u8("lmc"), u8("max_vl_num"), u8("sm_sl"), u8("subnet_timeout"),
                u8("init_type_reply"), u8("active_width"), u8("active_speed"), u8("phys_state"), u8("link_layer"),
                u8("flags"), u16("port_cap_flags2"));
    }

    /** {@code struct ibv_pd}. */
    public static final class ibv_pd {
        public static final StructLayout LAYOUT = struct("ibv_pd", ptr("context"), u32("handle"));
    }

    /** {@code struct ibv_mr}. */
    public static final class ibv_mr {
        public static final StructLayout LAYOUT = struct("ibv_mr",
                ptr("context"), ptr("pd"), ptr("addr"), u64("length"), u32("handle"), u32("lkey"), u32("rkey"));
        public static final VarHandle lkey$vh = vh(LAYOUT, "lkey");
        public static final VarHandle rkey$vh = vh(LAYOUT, "rkey");
    }

    /** {@code struct ibv_mw}. */
    public static final class ibv_mw {
        public static final StructLayout LAYOUT = struct("ibv_mw",
                ptr("context"), ptr("pd"), u32("rkey"), u32("handle"), u32("type"));
        public static final VarHandle rkey$vh = vh(LAYOUT, "rkey");
    }

    /** {@code struct ibv_mw_bind_info}. */
    public static final class ibv_mw_bind_info {
        public static final StructLayout LAYOUT = (StructLayout) MW_BIND_INFO;
        public static final VarHandle mr$vh = vh(LAYOUT, "mr");
        public static final VarHandle addr$vh = vh(LAYOUT, "addr");
        public static final VarHandle length$vh = vh(LAYOUT, "length");
        public static final VarHandle mw_access_flags$vh = vh(LAYOUT, "mw_access_flags");
        public static final long mr$off = off(LAYOUT, "mr");
    }

    /** {@code struct ibv_mw_bind}, the argument of the type 1 {@code ibv_bind_mw}. */
    public static final class ibv_mw_bind {
        public static final StructLayout LAYOUT = struct("ibv_mw_bind",
                u64("wr_id"), u32("send_flags"), MW_BIND_INFO.withName("bind_info"));
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
        public static final VarHandle send_flags$vh = vh(LAYOUT, "send_flags");
        public static final long bind_info$off = off(LAYOUT, "bind_info");
    }

    /** {@code struct ibv_global_route}. */
    public static final class ibv_global_route {
        public static final StructLayout LAYOUT = (StructLayout) GLOBAL_ROUTE;
    }

    /** {@code struct ibv_ah_attr}. */
    public static final class ibv_ah_attr {
        public static final StructLayout LAYOUT = (StructLayout) AH_ATTR;
    }

    /** {@code struct ibv_qp_cap}. */
    public static final class ibv_qp_cap {
        public static final StructLayout LAYOUT = (StructLayout) QP_CAP;
    }

    /** {@code struct ibv_comp_channel}. */
    public static final class ibv_comp_channel {
        public static final StructLayout LAYOUT = struct("ibv_comp_channel", ptr("context"), u32("fd"), u32("refcnt"));
        public static final VarHandle fd$vh = vh(LAYOUT, "fd");
    }

    /** {@code struct ibv_cq}. */
    public static final class ibv_cq {
        public static final StructLayout LAYOUT = struct("ibv_cq",
                ptr("context"), ptr("channel"), ptr("cq_context"), u32("handle"), u32("cqe"), mutex("mutex"),
                cond("cond"), u32("comp_events_completed"), u32("async_events_completed"));
        public static final VarHandle cqe$vh = vh(LAYOUT, "cqe");
    }

    /**
     * {@code struct ibv_cq_ex}: an {@code ibv_cq} (same leading fields, so the same pointer serves every
     * CQ verb) followed by the current completion's {@code status} and {@code wr_id} and the poll and
     * read function pointers that the {@code static inline} {@code ibv_start_poll}/{@code ibv_wc_read_*}
     * call.
     */
    public static final class ibv_cq_ex {
        public static final StructLayout LAYOUT = struct("ibv_cq_ex",
                ptr("context"), ptr("channel"), ptr("cq_context"), u32("handle"), u32("cqe"), mutex("mutex"),
                cond("cond"), u32("comp_events_completed"), u32("async_events_completed"), u32("comp_mask"),
                u32("status"), u64("wr_id"), ptr("start_poll"), ptr("next_poll"), ptr("end_poll"),
                ptr("read_opcode"), ptr("read_vendor_err"), ptr("read_byte_len"), ptr("read_imm_data"),
                ptr("read_qp_num"), ptr("read_src_qp"), ptr("read_wc_flags"), ptr("read_slid"), ptr("read_sl"),
                ptr("read_dlid_path_bits"), ptr("read_completion_ts"), ptr("read_cvlan"), ptr("read_flow_tag"),
                ptr("read_tm_info"), ptr("read_completion_wallclock_ns"));
        public static final VarHandle status$vh = vh(LAYOUT, "status");
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
        public static final long start_poll$off = off(LAYOUT, "start_poll");
        public static final long next_poll$off = off(LAYOUT, "next_poll");
        public static final long end_poll$off = off(LAYOUT, "end_poll");
        public static final long read_opcode$off = off(LAYOUT, "read_opcode");
        public static final long read_vendor_err$off = off(LAYOUT, "read_vendor_err");
        public static final long read_byte_len$off = off(LAYOUT, "read_byte_len");
        public static final long read_imm_data$off = off(LAYOUT, "read_imm_data");
        public static final long read_qp_num$off = off(LAYOUT, "read_qp_num");
        public static final long read_src_qp$off = off(LAYOUT, "read_src_qp");
        public static final long read_wc_flags$off = off(LAYOUT, "read_wc_flags");
        public static final long read_slid$off = off(LAYOUT, "read_slid");
        public static final long read_sl$off = off(LAYOUT, "read_sl");
        public static final long read_dlid_path_bits$off = off(LAYOUT, "read_dlid_path_bits");
    }

    /** {@code struct ibv_cq_init_attr_ex}: the arguments of {@code ibv_create_cq_ex}. */
    public static final class ibv_cq_init_attr_ex {
        public static final StructLayout LAYOUT = struct("ibv_cq_init_attr_ex",
                u32("cqe"), ptr("cq_context"), ptr("channel"), u32("comp_vector"), u64("wc_flags"),
                u32("comp_mask"), u32("flags"), ptr("parent_domain"));
        public static final VarHandle cqe$vh = vh(LAYOUT, "cqe");
        public static final VarHandle channel$vh = vh(LAYOUT, "channel");
        public static final VarHandle comp_vector$vh = vh(LAYOUT, "comp_vector");
        public static final VarHandle wc_flags$vh = vh(LAYOUT, "wc_flags");
    }

    /** {@code struct ibv_poll_cq_attr}: the (reserved) argument of {@code ibv_start_poll}. */
    public static final class ibv_poll_cq_attr {
        public static final StructLayout LAYOUT = struct("ibv_poll_cq_attr", u32("comp_mask"));
    }

    /** {@code struct ibv_srq_attr}. */
    public static final class ibv_srq_attr {
        public static final StructLayout LAYOUT = (StructLayout) SRQ_ATTR;
        public static final VarHandle max_wr$vh = vh(LAYOUT, "max_wr");
        public static final VarHandle max_sge$vh = vh(LAYOUT, "max_sge");
        public static final VarHandle srq_limit$vh = vh(LAYOUT, "srq_limit");
    }

    /** {@code struct ibv_srq_init_attr}. */
    public static final class ibv_srq_init_attr {
        public static final StructLayout LAYOUT = struct("ibv_srq_init_attr", ptr("srq_context"),
                SRQ_ATTR.withName("attr"));
        public static final long attr$off = off(LAYOUT, "attr");
    }

    /** {@code struct ibv_srq}. */
    public static final class ibv_srq {
        public static final StructLayout LAYOUT = struct("ibv_srq",
                ptr("context"), ptr("srq_context"), ptr("pd"), u32("handle"), mutex("mutex"), cond("cond"),
                u32("events_completed"));
    }

    /** {@code struct ibv_td_init_attr}. */
    public static final class ibv_td_init_attr {
        public static final StructLayout LAYOUT = struct("ibv_td_init_attr", u32("comp_mask"));
    }

    /** {@code struct ibv_parent_domain_init_attr}: how a thread domain is attached to the QPs of a PD. */
    public static final class ibv_parent_domain_init_attr {
        public static final StructLayout LAYOUT = struct("ibv_parent_domain_init_attr",
                ptr("pd"), ptr("td"), u32("comp_mask"), ptr("alloc"), ptr("free"), ptr("pd_context"));
        public static final VarHandle pd$vh = vh(LAYOUT, "pd");
        public static final VarHandle td$vh = vh(LAYOUT, "td");
    }

    /** {@code struct ibv_qp}. */
    public static final class ibv_qp {
        public static final StructLayout LAYOUT = struct("ibv_qp",
                ptr("context"), ptr("qp_context"), ptr("pd"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"),
                u32("handle"), u32("qp_num"), u32("state"), u32("qp_type"), mutex("mutex"), cond("cond"),
                u32("events_completed"));
        public static final VarHandle qp_num$vh = vh(LAYOUT, "qp_num");
    }

    /**
     * {@code struct ibv_qp_ex} as rdma-core 44 declares it, up to {@code wr_atomic_write}. rdma-core 45
     * appends {@code wr_flush} right after it, at {@link #wr_flush$off}; read it only when the installed
     * library is 45 or later.
     */
    public static final class ibv_qp_ex {
        public static final StructLayout LAYOUT = struct("ibv_qp_ex",
                ibv_qp.LAYOUT.withName("qp_base"), u64("comp_mask"), u64("wr_id"), u32("wr_flags"),
                ptr("wr_atomic_cmp_swp"), ptr("wr_atomic_fetch_add"), ptr("wr_bind_mw"), ptr("wr_local_inv"),
                ptr("wr_rdma_read"), ptr("wr_rdma_write"), ptr("wr_rdma_write_imm"), ptr("wr_send"),
                ptr("wr_send_imm"), ptr("wr_send_inv"), ptr("wr_send_tso"), ptr("wr_set_ud_addr"),
                ptr("wr_set_xrc_srqn"), ptr("wr_set_inline_data"), ptr("wr_set_inline_data_list"), ptr("wr_set_sge"),
                ptr("wr_set_sge_list"), ptr("wr_start"), ptr("wr_complete"), ptr("wr_abort"), ptr("wr_atomic_write"));
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
        public static final VarHandle wr_flags$vh = vh(LAYOUT, "wr_flags");
        public static final long wr_id$off = off(LAYOUT, "wr_id");
        public static final long wr_flags$off = off(LAYOUT, "wr_flags");
        /** Where rdma-core 45 and later keep {@code wr_flush}: the pointer after {@code wr_atomic_write}. */
        public static final long wr_flush$off = off(LAYOUT, "wr_atomic_write") + 8;
    }

    /** {@code struct ibv_qp_init_attr_ex}. */
    public static final class ibv_qp_init_attr_ex {
        public static final StructLayout LAYOUT = struct("ibv_qp_init_attr_ex",
                ptr("qp_context"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), QP_CAP.withName("cap"),
                u32("qp_type"), u32("sq_sig_all"), u32("comp_mask"), ptr("pd"), ptr("xrcd"), u32("create_flags"),
                u16("max_tso_header"), ptr("rwq_ind_tbl"),
                struct("ibv_rx_hash_conf", u8("rx_hash_function"), u8("rx_hash_key_len"), ptr("rx_hash_key"),
                        u64("rx_hash_fields_mask")).withName("rx_hash_conf"),
                u32("source_qpn"), u64("send_ops_flags"));
        public static final VarHandle send_cq$vh = vh(LAYOUT, "send_cq");
        public static final VarHandle recv_cq$vh = vh(LAYOUT, "recv_cq");
        public static final VarHandle srq$vh = vh(LAYOUT, "srq");
        public static final long cap$off = off(LAYOUT, "cap");
        public static final VarHandle qp_type$vh = vh(LAYOUT, "qp_type");
        public static final VarHandle sq_sig_all$vh = vh(LAYOUT, "sq_sig_all");
        public static final VarHandle comp_mask$vh = vh(LAYOUT, "comp_mask");
        public static final VarHandle pd$vh = vh(LAYOUT, "pd");
        public static final VarHandle max_tso_header$vh = vh(LAYOUT, "max_tso_header");
        public static final VarHandle send_ops_flags$vh = vh(LAYOUT, "send_ops_flags");
    }

    /** {@code struct ibv_qp_attr}. */
    public static final class ibv_qp_attr {
        public static final StructLayout LAYOUT = struct("ibv_qp_attr",
                u32("qp_state"), u32("cur_qp_state"), u32("path_mtu"), u32("path_mig_state"), u32("qkey"),
                u32("rq_psn"), u32("sq_psn"), u32("dest_qp_num"), u32("qp_access_flags"), QP_CAP.withName("cap"),
                AH_ATTR.withName("ah_attr"), AH_ATTR.withName("alt_ah_attr"), u16("pkey_index"),
                u16("alt_pkey_index"), u8("en_sqd_async_notify"), u8("sq_draining"), u8("max_rd_atomic"),
                u8("max_dest_rd_atomic"), u8("min_rnr_timer"), u8("port_num"), u8("timeout"), u8("retry_cnt"),
                u8("rnr_retry"), u8("alt_port_num"), u8("alt_timeout"), u32("rate_limit"));
    }

    /** {@code struct ibv_sge}. */
    public static final class ibv_sge {
        public static final StructLayout LAYOUT = struct("ibv_sge", u64("addr"), u32("length"), u32("lkey"));
        public static final VarHandle addr$vh = vh(LAYOUT, "addr");
        public static final VarHandle length$vh = vh(LAYOUT, "length");
        public static final VarHandle lkey$vh = vh(LAYOUT, "lkey");
        public static final long addr$off = off(LAYOUT, "addr");
        public static final long length$off = off(LAYOUT, "length");
        public static final long lkey$off = off(LAYOUT, "lkey");
    }


    /** {@code struct ibv_send_wr}. */
    public static final class ibv_send_wr {
        public static final StructLayout LAYOUT = struct("ibv_send_wr",
                u64("wr_id"), ptr("next"), ptr("sg_list"), u32("num_sge"), u32("opcode"), u32("send_flags"),
                union(LayoutBuilder.ANONYMOUS + "0", u32("imm_data"), u32("invalidate_rkey")),
                union("wr",
                        struct("rdma", u64("remote_addr"), u32("rkey")),
                        struct("atomic", u64("remote_addr"), u64("compare_add"), u64("swap"), u32("rkey")),
                        struct("ud", ptr("ah"), u32("remote_qpn"), u32("remote_qkey"))),
                union("qp_type", struct("xrc", u32("remote_srqn"))),
                union(LayoutBuilder.ANONYMOUS + "1",
                        struct("bind_mw", ptr("mw"), u32("rkey"), MW_BIND_INFO.withName("bind_info")),
                        struct("tso", ptr("hdr"), u16("hdr_sz"), u16("mss"))));
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
        public static final VarHandle next$vh = vh(LAYOUT, "next");
        public static final VarHandle sg_list$vh = vh(LAYOUT, "sg_list");
        public static final VarHandle num_sge$vh = vh(LAYOUT, "num_sge");
        public static final VarHandle opcode$vh = vh(LAYOUT, "opcode");
        public static final VarHandle send_flags$vh = vh(LAYOUT, "send_flags");
        public static final VarHandle imm_data$vh = vh(LAYOUT, LayoutBuilder.ANONYMOUS + "0.imm_data");
        public static final VarHandle rdma_remote_addr$vh = vh(LAYOUT, "wr.rdma.remote_addr");
        public static final VarHandle rdma_rkey$vh = vh(LAYOUT, "wr.rdma.rkey");
        public static final VarHandle atomic_remote_addr$vh = vh(LAYOUT, "wr.atomic.remote_addr");
        public static final VarHandle atomic_compare_add$vh = vh(LAYOUT, "wr.atomic.compare_add");
        public static final VarHandle atomic_swap$vh = vh(LAYOUT, "wr.atomic.swap");
        public static final VarHandle atomic_rkey$vh = vh(LAYOUT, "wr.atomic.rkey");
        public static final VarHandle ud_ah$vh = vh(LAYOUT, "wr.ud.ah");
        public static final VarHandle ud_remote_qpn$vh = vh(LAYOUT, "wr.ud.remote_qpn");
        public static final VarHandle ud_remote_qkey$vh = vh(LAYOUT, "wr.ud.remote_qkey");
        public static final VarHandle xrc_remote_srqn$vh = vh(LAYOUT, "qp_type.xrc.remote_srqn");
        public static final VarHandle bind_mw_mw$vh = vh(LAYOUT, LayoutBuilder.ANONYMOUS + "1.bind_mw.mw");
        public static final VarHandle bind_mw_rkey$vh = vh(LAYOUT, LayoutBuilder.ANONYMOUS + "1.bind_mw.rkey");
        public static final long bind_mw_bind_info$off = off(LAYOUT, LayoutBuilder.ANONYMOUS + "1.bind_mw.bind_info");
        public static final VarHandle tso_hdr$vh = vh(LAYOUT, LayoutBuilder.ANONYMOUS + "1.tso.hdr");
        public static final VarHandle tso_hdr_sz$vh = vh(LAYOUT, LayoutBuilder.ANONYMOUS + "1.tso.hdr_sz");
        public static final VarHandle tso_mss$vh = vh(LAYOUT, LayoutBuilder.ANONYMOUS + "1.tso.mss");
        // Pointer fields are written as 64-bit integers on the data path: no MemorySegment per write.
        public static final long next$off = off(LAYOUT, "next");
        public static final long sg_list$off = off(LAYOUT, "sg_list");
        public static final long ud_ah$off = off(LAYOUT, "wr.ud.ah");
        public static final long bind_mw_mw$off = off(LAYOUT, LayoutBuilder.ANONYMOUS + "1.bind_mw.mw");
        public static final long tso_hdr$off = off(LAYOUT, LayoutBuilder.ANONYMOUS + "1.tso.hdr");
        // The data path's fields, written at these offsets of the reused WR array (no layout path per write).
        public static final long wr_id$off = off(LAYOUT, "wr_id");
        public static final long num_sge$off = off(LAYOUT, "num_sge");
        public static final long opcode$off = off(LAYOUT, "opcode");
        public static final long send_flags$off = off(LAYOUT, "send_flags");
        public static final long imm_data$off = off(LAYOUT, LayoutBuilder.ANONYMOUS + "0.imm_data");
        public static final long rdma_remote_addr$off = off(LAYOUT, "wr.rdma.remote_addr");
        public static final long rdma_rkey$off = off(LAYOUT, "wr.rdma.rkey");
    }

    /** {@code struct ibv_recv_wr}. */
    public static final class ibv_recv_wr {
        public static final StructLayout LAYOUT = struct("ibv_recv_wr",
                u64("wr_id"), ptr("next"), ptr("sg_list"), u32("num_sge"));
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
        public static final VarHandle next$vh = vh(LAYOUT, "next");
        public static final VarHandle sg_list$vh = vh(LAYOUT, "sg_list");
        public static final VarHandle num_sge$vh = vh(LAYOUT, "num_sge");
        public static final long next$off = off(LAYOUT, "next");
        public static final long sg_list$off = off(LAYOUT, "sg_list");
    }

    /** {@code struct ibv_wc}. */
    public static final class ibv_wc {
        public static final StructLayout LAYOUT = struct("ibv_wc",
                u64("wr_id"), u32("status"), u32("opcode"), u32("vendor_err"), u32("byte_len"),
                union(LayoutBuilder.ANONYMOUS + "0", u32("imm_data"), u32("invalidated_rkey")),
                u32("qp_num"), u32("src_qp"), u32("wc_flags"), u16("pkey_index"), u16("slid"), u8("sl"),
                u8("dlid_path_bits"));
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
        public static final VarHandle status$vh = vh(LAYOUT, "status");
        public static final VarHandle opcode$vh = vh(LAYOUT, "opcode");
        public static final VarHandle vendor_err$vh = vh(LAYOUT, "vendor_err");
        public static final VarHandle byte_len$vh = vh(LAYOUT, "byte_len");
        public static final VarHandle imm_data$vh = vh(LAYOUT, LayoutBuilder.ANONYMOUS + "0.imm_data");
        public static final VarHandle qp_num$vh = vh(LAYOUT, "qp_num");
        public static final VarHandle src_qp$vh = vh(LAYOUT, "src_qp");
        public static final VarHandle wc_flags$vh = vh(LAYOUT, "wc_flags");
        public static final VarHandle pkey_index$vh = vh(LAYOUT, "pkey_index");
        public static final VarHandle slid$vh = vh(LAYOUT, "slid");
        public static final VarHandle sl$vh = vh(LAYOUT, "sl");
        public static final VarHandle dlid_path_bits$vh = vh(LAYOUT, "dlid_path_bits");
    }

    /** {@code struct ibv_async_event}. */
    public static final class ibv_async_event {
        public static final StructLayout LAYOUT = struct("ibv_async_event",
                union("element", ptr("cq"), ptr("qp"), ptr("srq"), ptr("wq"), u32("port_num")),
                u32("event_type"));
    }

    /** {@code struct pollfd} of {@code poll(2)}. */
    public static final class pollfd {
        public static final StructLayout LAYOUT = struct("pollfd", u32("fd"), u16("events"), u16("revents"));
        public static final VarHandle fd$vh = vh(LAYOUT, "fd");
        public static final VarHandle events$vh = vh(LAYOUT, "events");
        public static final VarHandle revents$vh = vh(LAYOUT, "revents");
    }

    /**
     * Every struct above, for the layout test. A method, not a field: the nested classes use this
     * class's shared layouts, so a list built in its initializer could see a nested class half-initialised.
     */
    public static List<StructLayout> all() {
        return List.of(
            ibv_device.LAYOUT, ibv_context_ops.LAYOUT, ibv_context.LAYOUT, verbs_context.LAYOUT,
            ibv_device_attr.LAYOUT, ibv_device_attr_ex.LAYOUT, ibv_port_attr.LAYOUT, ibv_pd.LAYOUT, ibv_mr.LAYOUT, ibv_mw.LAYOUT,
            ibv_mw_bind_info.LAYOUT, ibv_mw_bind.LAYOUT, ibv_global_route.LAYOUT, ibv_ah_attr.LAYOUT,
            ibv_qp_cap.LAYOUT, ibv_comp_channel.LAYOUT, ibv_cq.LAYOUT, ibv_cq_ex.LAYOUT, ibv_cq_init_attr_ex.LAYOUT,
            ibv_poll_cq_attr.LAYOUT, ibv_srq_attr.LAYOUT,
            ibv_srq_init_attr.LAYOUT, ibv_srq.LAYOUT, ibv_td_init_attr.LAYOUT, ibv_parent_domain_init_attr.LAYOUT,
            ibv_qp.LAYOUT, ibv_qp_ex.LAYOUT, ibv_qp_init_attr_ex.LAYOUT, ibv_qp_attr.LAYOUT, ibv_sge.LAYOUT,
            ibv_send_wr.LAYOUT, ibv_recv_wr.LAYOUT, ibv_wc.LAYOUT, ibv_async_event.LAYOUT,
            pollfd.LAYOUT);
    }
}
