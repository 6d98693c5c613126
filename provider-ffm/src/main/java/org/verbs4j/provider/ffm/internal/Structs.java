package org.verbs4j.provider.ffm.internal;

import static org.verbs4j.provider.ffm.internal.LayoutBuilder.layout;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.vh;

import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.List;
import org.verbs4j.provider.nativecommon.internal.CLayout;
import org.verbs4j.provider.nativecommon.internal.ContextStructs;
import org.verbs4j.provider.nativecommon.internal.CqStructs;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;
import org.verbs4j.provider.nativecommon.internal.QpStructs;

/**
 * The libibverbs structs the provider reads and writes, as FFM layouts built from the one layout description
 * of {@code provider-native-common} ({@code org.verbs4j.provider.nativecommon.internal.*Structs}, checked
 * there against {@code infiniband/verbs.h} with gcc). Byte offsets come from that description too
 * ({@code QpStructs.ibv_send_wr.wr_id$off}); this class adds what only FFM has.
 *
 * <p>Each nested class holds one struct's {@code LAYOUT} and the VarHandles ({@code field$vh}, coordinates:
 * segment and base offset) of the fields used.
 */
public final class Structs {
    private Structs() {}

    /** {@code union ibv_gid}: 16 raw bytes. */
    public static final long GID_SIZE = 16;

    /** {@code struct ibv_device}. */
    public static final class ibv_device {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_device.DESC);
    }

    /** {@code struct ibv_context_ops}: the data-path function pointers of a context. */
    public static final class ibv_context_ops {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_context_ops.DESC);
    }

    /** {@code struct ibv_context}. */
    public static final class ibv_context {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_context.DESC);
        public static final VarHandle async_fd$vh = vh(LAYOUT, "async_fd");
        public static final VarHandle num_comp_vectors$vh = vh(LAYOUT, "num_comp_vectors");
    }

    /**
     * {@code struct verbs_context}: the extended ops, which sit in memory just before the
     * {@code ibv_context} a provider returns. An op is present when {@code sz} covers it
     * ({@code verbs_get_ctx_op}).
     */
    public static final class verbs_context {
        public static final StructLayout LAYOUT = layout(ContextStructs.verbs_context.DESC);
    }

    /** {@code struct ibv_device_attr}. */
    public static final class ibv_device_attr {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_device_attr.DESC);
    }

    /** {@code struct ibv_device_attr_ex}, read for {@code device_cap_flags_ex} (atomic write, flush). */
    public static final class ibv_device_attr_ex {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_device_attr_ex.DESC);
    }

    /** {@code struct ibv_port_attr}. */
    public static final class ibv_port_attr {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_port_attr.DESC);
    }

    /** {@code struct ibv_pd}. */
    public static final class ibv_pd {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_pd.DESC);
    }

    /** {@code struct ibv_mr}. */
    public static final class ibv_mr {
        public static final StructLayout LAYOUT = layout(MemoryStructs.ibv_mr.DESC);
        public static final VarHandle lkey$vh = vh(LAYOUT, "lkey");
        public static final VarHandle rkey$vh = vh(LAYOUT, "rkey");
    }

    /** {@code struct ibv_mw}. */
    public static final class ibv_mw {
        public static final StructLayout LAYOUT = layout(MemoryStructs.ibv_mw.DESC);
        public static final VarHandle rkey$vh = vh(LAYOUT, "rkey");
    }

    /** {@code struct ibv_mw_bind_info}. */
    public static final class ibv_mw_bind_info {
        public static final StructLayout LAYOUT = layout(MemoryStructs.ibv_mw_bind_info.DESC);
        public static final VarHandle mr$vh = vh(LAYOUT, "mr");
        public static final VarHandle addr$vh = vh(LAYOUT, "addr");
        public static final VarHandle length$vh = vh(LAYOUT, "length");
        public static final VarHandle mw_access_flags$vh = vh(LAYOUT, "mw_access_flags");
    }

    /** {@code struct ibv_mw_bind}, the argument of the type 1 {@code ibv_bind_mw}. */
    public static final class ibv_mw_bind {
        public static final StructLayout LAYOUT = layout(MemoryStructs.ibv_mw_bind.DESC);
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
        public static final VarHandle send_flags$vh = vh(LAYOUT, "send_flags");
    }

    /** {@code struct ibv_global_route}. */
    public static final class ibv_global_route {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_global_route.DESC);
    }

    /** {@code struct ibv_ah_attr}. */
    public static final class ibv_ah_attr {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_ah_attr.DESC);
    }

    /** {@code struct ibv_qp_cap}. */
    public static final class ibv_qp_cap {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_qp_cap.DESC);
    }

    /** {@code struct ibv_comp_channel}. */
    public static final class ibv_comp_channel {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_comp_channel.DESC);
        public static final VarHandle fd$vh = vh(LAYOUT, "fd");
    }

    /** {@code struct ibv_cq}. */
    public static final class ibv_cq {
        public static final StructLayout LAYOUT = layout(CqStructs.ibv_cq.DESC);
        public static final VarHandle cqe$vh = vh(LAYOUT, "cqe");
    }

    /**
     * {@code struct ibv_cq_ex}: an {@code ibv_cq} (same leading fields, so the same pointer serves every
     * CQ verb) followed by the current completion's {@code status} and {@code wr_id} and the poll and
     * read function pointers that the {@code static inline} {@code ibv_start_poll}/{@code ibv_wc_read_*}
     * call.
     */
    public static final class ibv_cq_ex {
        public static final StructLayout LAYOUT = layout(CqStructs.ibv_cq_ex.DESC);
        public static final VarHandle status$vh = vh(LAYOUT, "status");
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
    }

    /** {@code struct ibv_cq_init_attr_ex}: the arguments of {@code ibv_create_cq_ex}. */
    public static final class ibv_cq_init_attr_ex {
        public static final StructLayout LAYOUT = layout(CqStructs.ibv_cq_init_attr_ex.DESC);
        public static final VarHandle cqe$vh = vh(LAYOUT, "cqe");
        public static final VarHandle channel$vh = vh(LAYOUT, "channel");
        public static final VarHandle comp_vector$vh = vh(LAYOUT, "comp_vector");
        public static final VarHandle wc_flags$vh = vh(LAYOUT, "wc_flags");
    }

    /** {@code struct ibv_poll_cq_attr}: the (reserved) argument of {@code ibv_start_poll}. */
    public static final class ibv_poll_cq_attr {
        public static final StructLayout LAYOUT = layout(CqStructs.ibv_poll_cq_attr.DESC);
    }

    /** {@code struct ibv_srq_attr}. */
    public static final class ibv_srq_attr {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_srq_attr.DESC);
        public static final VarHandle max_wr$vh = vh(LAYOUT, "max_wr");
        public static final VarHandle max_sge$vh = vh(LAYOUT, "max_sge");
        public static final VarHandle srq_limit$vh = vh(LAYOUT, "srq_limit");
    }

    /** {@code struct ibv_srq_init_attr}. */
    public static final class ibv_srq_init_attr {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_srq_init_attr.DESC);
    }

    /** {@code struct ibv_srq}. */
    public static final class ibv_srq {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_srq.DESC);
    }

    /** {@code struct ibv_td_init_attr}. */
    public static final class ibv_td_init_attr {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_td_init_attr.DESC);
    }

    /** {@code struct ibv_parent_domain_init_attr}: how a thread domain is attached to the QPs of a PD. */
    public static final class ibv_parent_domain_init_attr {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_parent_domain_init_attr.DESC);
        public static final VarHandle pd$vh = vh(LAYOUT, "pd");
        public static final VarHandle td$vh = vh(LAYOUT, "td");
    }

    /** {@code struct ibv_qp}. */
    public static final class ibv_qp {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_qp.DESC);
        public static final VarHandle qp_num$vh = vh(LAYOUT, "qp_num");
    }

    /**
     * {@code struct ibv_qp_ex} as rdma-core 44 declares it, up to {@code wr_atomic_write}. rdma-core 45
     * appends {@code wr_flush} right after it, at {@link #wr_flush$off}; read it only when the installed
     * library is 45 or later.
     */
    public static final class ibv_qp_ex {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_qp_ex.DESC);
    }

    /** {@code struct ibv_qp_init_attr_ex}. */
    public static final class ibv_qp_init_attr_ex {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_qp_init_attr_ex.DESC);
        public static final VarHandle send_cq$vh = vh(LAYOUT, "send_cq");
        public static final VarHandle recv_cq$vh = vh(LAYOUT, "recv_cq");
        public static final VarHandle srq$vh = vh(LAYOUT, "srq");
        public static final VarHandle qp_type$vh = vh(LAYOUT, "qp_type");
        public static final VarHandle sq_sig_all$vh = vh(LAYOUT, "sq_sig_all");
        public static final VarHandle comp_mask$vh = vh(LAYOUT, "comp_mask");
        public static final VarHandle pd$vh = vh(LAYOUT, "pd");
        public static final VarHandle max_tso_header$vh = vh(LAYOUT, "max_tso_header");
        public static final VarHandle send_ops_flags$vh = vh(LAYOUT, "send_ops_flags");
    }

    /** {@code struct ibv_qp_attr}. */
    public static final class ibv_qp_attr {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_qp_attr.DESC);
    }

    /** {@code struct ibv_sge}. */
    public static final class ibv_sge {
        public static final StructLayout LAYOUT = layout(MemoryStructs.ibv_sge.DESC);
        public static final VarHandle addr$vh = vh(LAYOUT, "addr");
        public static final VarHandle length$vh = vh(LAYOUT, "length");
        public static final VarHandle lkey$vh = vh(LAYOUT, "lkey");
    }

    /** {@code struct ibv_send_wr}. */
    public static final class ibv_send_wr {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_send_wr.DESC);
        public static final VarHandle imm_data$vh = vh(LAYOUT, CLayout.ANONYMOUS + "0.imm_data");
        public static final VarHandle rdma_remote_addr$vh = vh(LAYOUT, "wr.rdma.remote_addr");
        public static final VarHandle rdma_rkey$vh = vh(LAYOUT, "wr.rdma.rkey");
        public static final VarHandle atomic_remote_addr$vh = vh(LAYOUT, "wr.atomic.remote_addr");
        public static final VarHandle atomic_compare_add$vh = vh(LAYOUT, "wr.atomic.compare_add");
        public static final VarHandle atomic_swap$vh = vh(LAYOUT, "wr.atomic.swap");
        public static final VarHandle atomic_rkey$vh = vh(LAYOUT, "wr.atomic.rkey");
        public static final VarHandle ud_remote_qpn$vh = vh(LAYOUT, "wr.ud.remote_qpn");
        public static final VarHandle ud_remote_qkey$vh = vh(LAYOUT, "wr.ud.remote_qkey");
        public static final VarHandle xrc_remote_srqn$vh = vh(LAYOUT, "qp_type.xrc.remote_srqn");
        public static final VarHandle bind_mw_rkey$vh = vh(LAYOUT, CLayout.ANONYMOUS + "1.bind_mw.rkey");
        public static final VarHandle tso_hdr_sz$vh = vh(LAYOUT, CLayout.ANONYMOUS + "1.tso.hdr_sz");
        public static final VarHandle tso_mss$vh = vh(LAYOUT, CLayout.ANONYMOUS + "1.tso.mss");
    }

    /** {@code struct ibv_recv_wr}. */
    public static final class ibv_recv_wr {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_recv_wr.DESC);
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
        public static final VarHandle num_sge$vh = vh(LAYOUT, "num_sge");
    }

    /** {@code struct ibv_wc}. */
    public static final class ibv_wc {
        public static final StructLayout LAYOUT = layout(CqStructs.ibv_wc.DESC);
        public static final VarHandle wr_id$vh = vh(LAYOUT, "wr_id");
        public static final VarHandle status$vh = vh(LAYOUT, "status");
        public static final VarHandle opcode$vh = vh(LAYOUT, "opcode");
        public static final VarHandle vendor_err$vh = vh(LAYOUT, "vendor_err");
        public static final VarHandle byte_len$vh = vh(LAYOUT, "byte_len");
        public static final VarHandle imm_data$vh = vh(LAYOUT, CLayout.ANONYMOUS + "0.imm_data");
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
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_async_event.DESC);
    }

    /** {@code struct pollfd} of {@code poll(2)}. */
    public static final class pollfd {
        public static final StructLayout LAYOUT = layout(PosixStructs.pollfd.DESC);
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
