package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.CLayout.chars;
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
 * The device and context structs of {@code infiniband/verbs.h}: {@code ibv_device}, {@code ibv_context}
 * (with its {@code ops}), the {@code verbs_context} before it, the query results, and the arguments of the
 * thread-domain and XRC-domain verbs.
 *
 * <p>Each nested class, named after its C struct, holds the struct's {@code DESC} (the layout as rdma-core 44
 * declares it on x86-64), {@code SIZEOF} and the byte offset {@code path$off} of each field the bindings use,
 * the C path's dots written as {@code $}. They are {@code static final}, so the JIT folds them.
 * {@code StructLayoutTest} checks every size and offset against the installed header with gcc.
 */
public final class ContextStructs {
    private ContextStructs() {}

    /** {@code struct ibv_device}. */
    public static final class ibv_device {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_device",
                struct("_ibv_device_ops", ptr("_dummy1"), ptr("_dummy2")).withName("_ops"),
                u32("node_type"), u32("transport_type"), chars("name", 64), chars("dev_name", 64),
                chars("dev_path", 256), chars("ibdev_path", 256));
        /** {@code sizeof(struct ibv_device)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private ibv_device() {}
    }

    /** {@code struct ibv_context_ops}: the data-path function pointers of a context. */
    public static final class ibv_context_ops {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_context_ops",
                ptr("_compat_query_device"), ptr("_compat_query_port"), ptr("_compat_alloc_pd"),
                ptr("_compat_dealloc_pd"), ptr("_compat_reg_mr"), ptr("_compat_rereg_mr"), ptr("_compat_dereg_mr"),
                ptr("alloc_mw"), ptr("bind_mw"), ptr("dealloc_mw"), ptr("_compat_create_cq"), ptr("poll_cq"),
                ptr("req_notify_cq"), ptr("_compat_cq_event"), ptr("_compat_resize_cq"), ptr("_compat_destroy_cq"),
                ptr("_compat_create_srq"), ptr("_compat_modify_srq"), ptr("_compat_query_srq"),
                ptr("_compat_destroy_srq"), ptr("post_srq_recv"), ptr("_compat_create_qp"), ptr("_compat_query_qp"),
                ptr("_compat_modify_qp"), ptr("_compat_destroy_qp"), ptr("post_send"), ptr("post_recv"),
                ptr("_compat_create_ah"), ptr("_compat_destroy_ah"), ptr("_compat_attach_mcast"),
                ptr("_compat_detach_mcast"), ptr("_compat_async_event"));
        /** {@code sizeof(struct ibv_context_ops)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private ibv_context_ops() {}
    }

    /** {@code struct ibv_context}. */
    public static final class ibv_context {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_context",
                ptr("device"), ibv_context_ops.DESC.withName("ops"), u32("cmd_fd"), u32("async_fd"),
                u32("num_comp_vectors"), mutex("mutex"), ptr("abi_compat"));
        /** {@code sizeof(struct ibv_context)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long ops$poll_cq$off = DESC.offset("ops.poll_cq");
        public static final long ops$post_srq_recv$off = DESC.offset("ops.post_srq_recv");
        public static final long ops$post_send$off = DESC.offset("ops.post_send");
        public static final long ops$post_recv$off = DESC.offset("ops.post_recv");
        public static final long async_fd$off = DESC.offset("async_fd");
        public static final long num_comp_vectors$off = DESC.offset("num_comp_vectors");
        public static final long abi_compat$off = DESC.offset("abi_compat");

        private ibv_context() {}
    }

    /**
     * {@code struct verbs_context}: the extended ops, which sit in memory just before the
     * {@code ibv_context} a provider returns. An op is present when {@code sz} covers it
     * ({@code verbs_get_ctx_op}).
     */
    public static final class verbs_context {
        /** The layout. */
        public static final CLayout DESC = struct("verbs_context",
                ptr("query_port"), ptr("advise_mr"), ptr("alloc_null_mr"), ptr("read_counters"),
                ptr("attach_counters_point_flow"), ptr("create_counters"), ptr("destroy_counters"), ptr("reg_dm_mr"),
                ptr("alloc_dm"), ptr("free_dm"), ptr("modify_flow_action_esp"), ptr("destroy_flow_action"),
                ptr("create_flow_action_esp"), ptr("modify_qp_rate_limit"), ptr("alloc_parent_domain"),
                ptr("dealloc_td"), ptr("alloc_td"), ptr("modify_cq"), ptr("post_srq_ops"),
                ptr("destroy_rwq_ind_table"), ptr("create_rwq_ind_table"), ptr("destroy_wq"), ptr("modify_wq"),
                ptr("create_wq"), ptr("query_rt_values"), ptr("create_cq_ex"), ptr("priv"), ptr("query_device_ex"),
                ptr("ibv_destroy_flow"), ptr("ABI_placeholder2"), ptr("ibv_create_flow"), ptr("ABI_placeholder1"),
                ptr("open_qp"), ptr("create_qp_ex"), ptr("get_srq_num"), ptr("create_srq_ex"), ptr("open_xrcd"),
                ptr("close_xrcd"), u64("_ABI_placeholder3"), u64("sz"), ibv_context.DESC.withName("context"));
        /** {@code sizeof(struct verbs_context)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long sz$off = DESC.offset("sz");
        public static final long context$off = DESC.offset("context");

        private verbs_context() {}
    }

    /** {@code struct ibv_device_attr}. */
    public static final class ibv_device_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_device_attr",
                chars("fw_ver", 64), u64("node_guid"), u64("sys_image_guid"), u64("max_mr_size"),
                u64("page_size_cap"), u32("vendor_id"), u32("vendor_part_id"), u32("hw_ver"), u32("max_qp"),
                u32("max_qp_wr"), u32("device_cap_flags"), u32("max_sge"), u32("max_sge_rd"), u32("max_cq"),
                u32("max_cqe"), u32("max_mr"), u32("max_pd"), u32("max_qp_rd_atom"), u32("max_ee_rd_atom"),
                u32("max_res_rd_atom"), u32("max_qp_init_rd_atom"), u32("max_ee_init_rd_atom"), u32("atomic_cap"),
                u32("max_ee"), u32("max_rdd"), u32("max_mw"), u32("max_raw_ipv6_qp"), u32("max_raw_ethy_qp"),
                u32("max_mcast_grp"), u32("max_mcast_qp_attach"), u32("max_total_mcast_qp_attach"), u32("max_ah"),
                u32("max_fmr"), u32("max_map_per_fmr"), u32("max_srq"), u32("max_srq_wr"), u32("max_srq_sge"),
                u16("max_pkeys"), u8("local_ca_ack_delay"), u8("phys_port_cnt"));
        /** {@code sizeof(struct ibv_device_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long fw_ver$off = DESC.offset("fw_ver");
        public static final long node_guid$off = DESC.offset("node_guid");
        public static final long sys_image_guid$off = DESC.offset("sys_image_guid");
        public static final long max_mr_size$off = DESC.offset("max_mr_size");
        public static final long page_size_cap$off = DESC.offset("page_size_cap");
        public static final long vendor_id$off = DESC.offset("vendor_id");
        public static final long vendor_part_id$off = DESC.offset("vendor_part_id");
        public static final long hw_ver$off = DESC.offset("hw_ver");
        public static final long max_qp$off = DESC.offset("max_qp");
        public static final long max_qp_wr$off = DESC.offset("max_qp_wr");
        public static final long device_cap_flags$off = DESC.offset("device_cap_flags");
        public static final long max_sge$off = DESC.offset("max_sge");
        public static final long max_sge_rd$off = DESC.offset("max_sge_rd");
        public static final long max_cq$off = DESC.offset("max_cq");
        public static final long max_cqe$off = DESC.offset("max_cqe");
        public static final long max_mr$off = DESC.offset("max_mr");
        public static final long max_pd$off = DESC.offset("max_pd");
        public static final long max_qp_rd_atom$off = DESC.offset("max_qp_rd_atom");
        public static final long max_ee_rd_atom$off = DESC.offset("max_ee_rd_atom");
        public static final long max_res_rd_atom$off = DESC.offset("max_res_rd_atom");
        public static final long max_qp_init_rd_atom$off = DESC.offset("max_qp_init_rd_atom");
        public static final long max_ee_init_rd_atom$off = DESC.offset("max_ee_init_rd_atom");
        public static final long atomic_cap$off = DESC.offset("atomic_cap");
        public static final long max_ee$off = DESC.offset("max_ee");
        public static final long max_rdd$off = DESC.offset("max_rdd");
        public static final long max_mw$off = DESC.offset("max_mw");
        public static final long max_raw_ipv6_qp$off = DESC.offset("max_raw_ipv6_qp");
        public static final long max_raw_ethy_qp$off = DESC.offset("max_raw_ethy_qp");
        public static final long max_mcast_grp$off = DESC.offset("max_mcast_grp");
        public static final long max_mcast_qp_attach$off = DESC.offset("max_mcast_qp_attach");
        public static final long max_total_mcast_qp_attach$off = DESC.offset("max_total_mcast_qp_attach");
        public static final long max_ah$off = DESC.offset("max_ah");
        public static final long max_fmr$off = DESC.offset("max_fmr");
        public static final long max_map_per_fmr$off = DESC.offset("max_map_per_fmr");
        public static final long max_srq$off = DESC.offset("max_srq");
        public static final long max_srq_wr$off = DESC.offset("max_srq_wr");
        public static final long max_srq_sge$off = DESC.offset("max_srq_sge");
        public static final long max_pkeys$off = DESC.offset("max_pkeys");
        public static final long local_ca_ack_delay$off = DESC.offset("local_ca_ack_delay");
        public static final long phys_port_cnt$off = DESC.offset("phys_port_cnt");

        private ibv_device_attr() {}
    }

    /** {@code struct ibv_device_attr_ex}, read for {@code device_cap_flags_ex} (atomic write, flush). */
    public static final class ibv_device_attr_ex {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_device_attr_ex",
                ibv_device_attr.DESC.withName("orig_attr"), u32("comp_mask"),
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
        /** {@code sizeof(struct ibv_device_attr_ex)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long device_cap_flags_ex$off = DESC.offset("device_cap_flags_ex");
        public static final long cq_mod_caps$off = DESC.offset("cq_mod_caps");

        private ibv_device_attr_ex() {}
    }

    /** {@code struct ibv_values_ex}: what {@code ibv_query_rt_values_ex} asks for and answers. */
    public static final class ibv_values_ex {
        /** The layout; {@code raw_clock} is a {@code struct timespec} of two 64-bit fields. */
        public static final CLayout DESC = struct("ibv_values_ex", u32("comp_mask"),
                struct("timespec", u64("tv_sec"), u64("tv_nsec")).withName("raw_clock"));
        /** {@code sizeof(struct ibv_values_ex)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long comp_mask$off = DESC.offset("comp_mask");
        public static final long raw_clock$tv_sec$off = DESC.offset("raw_clock.tv_sec");
        public static final long raw_clock$tv_nsec$off = DESC.offset("raw_clock.tv_nsec");
        /** {@code IBV_VALUES_MASK_RAW_CLOCK}. */
        public static final int IBV_VALUES_MASK_RAW_CLOCK = 1;

        private ibv_values_ex() {}
    }

    /** {@code struct ibv_port_attr}. */
    public static final class ibv_port_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_port_attr",
                u32("state"), u32("max_mtu"), u32("active_mtu"), u32("gid_tbl_len"), u32("port_cap_flags"),
                u32("max_msg_sz"), u32("bad_pkey_cntr"), u32("qkey_viol_cntr"), u16("pkey_tbl_len"), u16("lid"),
                u16("sm_lid"), u8("lmc"), u8("max_vl_num"), u8("sm_sl"), u8("subnet_timeout"),
                u8("init_type_reply"), u8("active_width"), u8("active_speed"), u8("phys_state"), u8("link_layer"),
                u8("flags"), u16("port_cap_flags2"));
        /** {@code sizeof(struct ibv_port_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long state$off = DESC.offset("state");
        public static final long max_mtu$off = DESC.offset("max_mtu");
        public static final long active_mtu$off = DESC.offset("active_mtu");
        public static final long gid_tbl_len$off = DESC.offset("gid_tbl_len");
        public static final long port_cap_flags$off = DESC.offset("port_cap_flags");
        public static final long max_msg_sz$off = DESC.offset("max_msg_sz");
        public static final long bad_pkey_cntr$off = DESC.offset("bad_pkey_cntr");
        public static final long qkey_viol_cntr$off = DESC.offset("qkey_viol_cntr");
        public static final long pkey_tbl_len$off = DESC.offset("pkey_tbl_len");
        public static final long lid$off = DESC.offset("lid");
        public static final long sm_lid$off = DESC.offset("sm_lid");
        public static final long lmc$off = DESC.offset("lmc");
        public static final long max_vl_num$off = DESC.offset("max_vl_num");
        public static final long sm_sl$off = DESC.offset("sm_sl");
        public static final long subnet_timeout$off = DESC.offset("subnet_timeout");
        public static final long init_type_reply$off = DESC.offset("init_type_reply");
        public static final long active_width$off = DESC.offset("active_width");
        public static final long active_speed$off = DESC.offset("active_speed");
        public static final long phys_state$off = DESC.offset("phys_state");
        public static final long link_layer$off = DESC.offset("link_layer");
        public static final long flags$off = DESC.offset("flags");
        public static final long port_cap_flags2$off = DESC.offset("port_cap_flags2");

        private ibv_port_attr() {}
    }

    /** {@code struct ibv_pd}. */
    public static final class ibv_pd {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_pd", ptr("context"), u32("handle"));
        /** {@code sizeof(struct ibv_pd)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private ibv_pd() {}
    }

    /** {@code struct ibv_comp_channel}. */
    public static final class ibv_comp_channel {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_comp_channel", ptr("context"), u32("fd"), u32("refcnt"));
        /** {@code sizeof(struct ibv_comp_channel)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long fd$off = DESC.offset("fd");

        private ibv_comp_channel() {}
    }

    /** {@code struct ibv_async_event}. */
    public static final class ibv_async_event {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_async_event",
                union("element", ptr("cq"), ptr("qp"), ptr("srq"), ptr("wq"), u32("port_num")),
                u32("event_type"));
        /** {@code sizeof(struct ibv_async_event)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long element$qp$off = DESC.offset("element.qp");
        public static final long element$port_num$off = DESC.offset("element.port_num");
        public static final long event_type$off = DESC.offset("event_type");

        private ibv_async_event() {}
    }

    /** {@code struct ibv_td_init_attr}. */
    public static final class ibv_td_init_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_td_init_attr", u32("comp_mask"));
        /** {@code sizeof(struct ibv_td_init_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private ibv_td_init_attr() {}
    }

    /** {@code struct ibv_parent_domain_init_attr}: how a thread domain is attached to the QPs of a PD. */
    public static final class ibv_parent_domain_init_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_parent_domain_init_attr",
                ptr("pd"), ptr("td"), u32("comp_mask"), ptr("alloc"), ptr("free"), ptr("pd_context"));
        /** {@code sizeof(struct ibv_parent_domain_init_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long pd$off = DESC.offset("pd");
        public static final long td$off = DESC.offset("td");

        private ibv_parent_domain_init_attr() {}
    }

    /** {@code struct ibv_xrcd_init_attr}: the arguments of {@code ibv_open_xrcd}. */
    public static final class ibv_xrcd_init_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_xrcd_init_attr", u32("comp_mask"), u32("fd"), u32("oflags"));
        /** {@code sizeof(struct ibv_xrcd_init_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long comp_mask$off = DESC.offset("comp_mask");
        public static final long fd$off = DESC.offset("fd");
        public static final long oflags$off = DESC.offset("oflags");
        /** {@code IBV_XRCD_INIT_ATTR_FD}. */
        public static final int IBV_XRCD_INIT_ATTR_FD = 1;
        /** {@code IBV_XRCD_INIT_ATTR_OFLAGS}. */
        public static final int IBV_XRCD_INIT_ATTR_OFLAGS = 1 << 1;

        private ibv_xrcd_init_attr() {}
    }

    /** {@code struct ibv_xrcd}: an XRC domain, which holds only its context. */
    public static final class ibv_xrcd {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_xrcd", ptr("context"));
        /** {@code sizeof(struct ibv_xrcd)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private ibv_xrcd() {}
    }

    /** {@code struct ibv_gid_entry}: a GID table entry with its attributes. */
    public static final class ibv_gid_entry {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_gid_entry",
                gid("gid"), u32("gid_index"), u32("port_num"), u32("gid_type"), u32("ndev_ifindex"));
        /** {@code sizeof(struct ibv_gid_entry)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long gid$off = DESC.offset("gid");
        public static final long gid_index$off = DESC.offset("gid_index");
        public static final long port_num$off = DESC.offset("port_num");
        public static final long gid_type$off = DESC.offset("gid_type");
        public static final long ndev_ifindex$off = DESC.offset("ndev_ifindex");

        private ibv_gid_entry() {}
    }
}
