package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.CLayout.ANONYMOUS;
import static org.verbs4j.provider.nativecommon.internal.CLayout.cond;
import static org.verbs4j.provider.nativecommon.internal.CLayout.mutex;
import static org.verbs4j.provider.nativecommon.internal.CLayout.ptr;
import static org.verbs4j.provider.nativecommon.internal.CLayout.struct;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u16;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u32;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u64;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u8;
import static org.verbs4j.provider.nativecommon.internal.CLayout.union;

/**
 * The completion structs of {@code infiniband/verbs.h}: {@code ibv_cq}, {@code ibv_cq_ex} with its poll and
 * read function pointers, the arguments of {@code ibv_create_cq_ex} and {@code ibv_start_poll}, and {@code ibv_wc}.
 *
 * <p>Each nested class, named after its C struct, holds the struct's {@code DESC} (the layout as rdma-core 44
 * declares it on x86-64), {@code SIZEOF} and the byte offset {@code path$off} of each field the bindings use,
 * the C path's dots written as {@code $}. They are {@code static final}, so the JIT folds them.
 * {@code StructLayoutTest} checks every size and offset against the installed header with gcc.
 */
public final class CqStructs {
    private CqStructs() {}

    /** {@code struct ibv_cq}. */
    public static final class ibv_cq {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_cq",
                ptr("context"), ptr("channel"), ptr("cq_context"), u32("handle"), u32("cqe"), mutex("mutex"),
                cond("cond"), u32("comp_events_completed"), u32("async_events_completed"));
        /** {@code sizeof(struct ibv_cq)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long cqe$off = DESC.offset("cqe");

        private ibv_cq() {}
    }

    /**
     * {@code struct ibv_cq_ex}: an {@code ibv_cq} (same leading fields, so the same pointer serves every
     * CQ verb) followed by the current completion's {@code status} and {@code wr_id} and the poll and
     * read function pointers that the {@code static inline} {@code ibv_start_poll}/{@code ibv_next_poll}/
     * {@code ibv_end_poll}/{@code ibv_wc_read_*} call.
     */
    public static final class ibv_cq_ex {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_cq_ex",
                ptr("context"), ptr("channel"), ptr("cq_context"), u32("handle"), u32("cqe"), mutex("mutex"),
                cond("cond"), u32("comp_events_completed"), u32("async_events_completed"), u32("comp_mask"),
                u32("status"), u64("wr_id"), ptr("start_poll"), ptr("next_poll"), ptr("end_poll"),
                ptr("read_opcode"), ptr("read_vendor_err"), ptr("read_byte_len"), ptr("read_imm_data"),
                ptr("read_qp_num"), ptr("read_src_qp"), ptr("read_wc_flags"), ptr("read_slid"), ptr("read_sl"),
                ptr("read_dlid_path_bits"), ptr("read_completion_ts"), ptr("read_cvlan"), ptr("read_flow_tag"),
                ptr("read_tm_info"), ptr("read_completion_wallclock_ns"));
        /** {@code sizeof(struct ibv_cq_ex)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long status$off = DESC.offset("status");
        public static final long wr_id$off = DESC.offset("wr_id");
        public static final long start_poll$off = DESC.offset("start_poll");
        public static final long next_poll$off = DESC.offset("next_poll");
        public static final long end_poll$off = DESC.offset("end_poll");
        public static final long read_opcode$off = DESC.offset("read_opcode");
        public static final long read_vendor_err$off = DESC.offset("read_vendor_err");
        public static final long read_byte_len$off = DESC.offset("read_byte_len");
        public static final long read_imm_data$off = DESC.offset("read_imm_data");
        public static final long read_qp_num$off = DESC.offset("read_qp_num");
        public static final long read_src_qp$off = DESC.offset("read_src_qp");
        public static final long read_wc_flags$off = DESC.offset("read_wc_flags");
        public static final long read_slid$off = DESC.offset("read_slid");
        public static final long read_sl$off = DESC.offset("read_sl");
        public static final long read_dlid_path_bits$off = DESC.offset("read_dlid_path_bits");
        public static final long read_completion_ts$off = DESC.offset("read_completion_ts");
        public static final long read_completion_wallclock_ns$off = DESC.offset("read_completion_wallclock_ns");

        private ibv_cq_ex() {}
    }

    /** {@code struct ibv_cq_init_attr_ex}: the arguments of {@code ibv_create_cq_ex}. */
    public static final class ibv_cq_init_attr_ex {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_cq_init_attr_ex",
                u32("cqe"), ptr("cq_context"), ptr("channel"), u32("comp_vector"), u64("wc_flags"),
                u32("comp_mask"), u32("flags"), ptr("parent_domain"));
        /** {@code sizeof(struct ibv_cq_init_attr_ex)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long cqe$off = DESC.offset("cqe");
        public static final long channel$off = DESC.offset("channel");
        public static final long comp_vector$off = DESC.offset("comp_vector");
        public static final long wc_flags$off = DESC.offset("wc_flags");

        /**
         * {@code IBV_WC_STANDARD_FLAGS}: the {@code wc_flags} that make the {@code ibv_wc_read_*} functions for
         * the fields of {@code struct ibv_wc} available (BYTE_LEN, IMM, QP_NUM, SRC_QP, SLID, SL, DLID_PATH_BITS).
         */
        public static final long WC_STANDARD_FLAGS = 0x7f;

        private ibv_cq_init_attr_ex() {}
    }

    /** {@code struct ibv_poll_cq_attr}: the (reserved) argument of {@code ibv_start_poll}. */
    public static final class ibv_poll_cq_attr {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_poll_cq_attr", u32("comp_mask"));
        /** {@code sizeof(struct ibv_poll_cq_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long comp_mask$off = DESC.offset("comp_mask");

        private ibv_poll_cq_attr() {}
    }

    /** {@code struct ibv_modify_cq_attr}, the argument of {@code ibv_modify_cq}. */
    public static final class ibv_modify_cq_attr {
        /** {@code IBV_CQ_ATTR_MODERATE} of {@code attr_mask}. */
        public static final int IBV_CQ_ATTR_MODERATE = 1;
        /** The layout. */
        public static final CLayout DESC = struct("ibv_modify_cq_attr", u32("attr_mask"),
                struct("ibv_moderate_cq", u16("cq_count"), u16("cq_period")).withName("moderate"));
        /** {@code sizeof(struct ibv_modify_cq_attr)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long attr_mask$off = DESC.offset("attr_mask");
        public static final long moderate$cq_count$off = DESC.offset("moderate.cq_count");
        public static final long moderate$cq_period$off = DESC.offset("moderate.cq_period");

        private ibv_modify_cq_attr() {}
    }

    /** {@code struct ibv_wc}. */
    public static final class ibv_wc {
        /** The layout. */
        public static final CLayout DESC = struct("ibv_wc",
                u64("wr_id"), u32("status"), u32("opcode"), u32("vendor_err"), u32("byte_len"),
                union(ANONYMOUS + "0", u32("imm_data"), u32("invalidated_rkey")),
                u32("qp_num"), u32("src_qp"), u32("wc_flags"), u16("pkey_index"), u16("slid"), u8("sl"),
                u8("dlid_path_bits"));
        /** {@code sizeof(struct ibv_wc)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long wr_id$off = DESC.offset("wr_id");
        public static final long status$off = DESC.offset("status");
        public static final long opcode$off = DESC.offset("opcode");
        public static final long vendor_err$off = DESC.offset("vendor_err");
        public static final long byte_len$off = DESC.offset("byte_len");
        public static final long imm_data$off = DESC.offset("$anon0.imm_data");
        public static final long qp_num$off = DESC.offset("qp_num");
        public static final long src_qp$off = DESC.offset("src_qp");
        public static final long wc_flags$off = DESC.offset("wc_flags");
        public static final long pkey_index$off = DESC.offset("pkey_index");
        public static final long slid$off = DESC.offset("slid");
        public static final long sl$off = DESC.offset("sl");
        public static final long dlid_path_bits$off = DESC.offset("dlid_path_bits");

        private ibv_wc() {}
    }
}
