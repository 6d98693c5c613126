package org.verbs4j.provider.nativecommon.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every struct the bindings lay out, grouped by the C header that declares it (for the socket addresses, the
 * one a program includes for them), for the layout checks against C: {@code StructLayoutTest}, and the
 * {@code _Static_assert}s of the null libibverbs ({@code benchmarks/c}), which {@link #main} prints for the
 * headers it is given ({@code infiniband/verbs.h} only). A new family (a new header, or a new group of structs)
 * adds its entry here and its structs are checked with the others; a family whose header is not installed
 * ({@code rdma/rdma_cma.h} without {@code librdmacm-dev}) is skipped on its own.
 */
public final class StructCatalog {
    private StructCatalog() {}

    /** The structs one header declares. */
    public record Family(String header, List<CLayout> structs) {}

    /**
     * Every family. A method, not a field: the struct classes refer to one another, so a list built in an
     * initializer could see one of them half-initialised.
     */
    public static List<Family> all() {
        return List.of(
                new Family("infiniband/verbs.h", List.of(
                        ContextStructs.ibv_device.DESC, ContextStructs.ibv_context_ops.DESC,
                        ContextStructs.ibv_context.DESC, ContextStructs.verbs_context.DESC,
                        ContextStructs.ibv_device_attr.DESC, ContextStructs.ibv_device_attr_ex.DESC,
                        ContextStructs.ibv_values_ex.DESC,
                        ContextStructs.ibv_port_attr.DESC, ContextStructs.ibv_pd.DESC,
                        ContextStructs.ibv_comp_channel.DESC, ContextStructs.ibv_async_event.DESC,
                        ContextStructs.ibv_td_init_attr.DESC, ContextStructs.ibv_parent_domain_init_attr.DESC,
                        ContextStructs.ibv_xrcd_init_attr.DESC, ContextStructs.ibv_xrcd.DESC,
                        MemoryStructs.ibv_mr.DESC, MemoryStructs.ibv_mw.DESC, MemoryStructs.ibv_mw_bind_info.DESC,
                        MemoryStructs.ibv_mw_bind.DESC, MemoryStructs.ibv_sge.DESC,
                        MemoryStructs.ibv_alloc_dm_attr.DESC, MemoryStructs.ibv_dm.DESC,
                        CqStructs.ibv_cq.DESC, CqStructs.ibv_cq_ex.DESC, CqStructs.ibv_cq_init_attr_ex.DESC,
                        CqStructs.ibv_poll_cq_attr.DESC, CqStructs.ibv_wc.DESC, CqStructs.ibv_modify_cq_attr.DESC,
                        QpStructs.ibv_global_route.DESC, QpStructs.ibv_ah_attr.DESC, QpStructs.ibv_qp_cap.DESC,
                        QpStructs.ibv_qp.DESC, QpStructs.ibv_qp_ex.DESC, QpStructs.ibv_qp_init_attr.DESC,
                        QpStructs.ibv_qp_init_attr_ex.DESC, QpStructs.ibv_qp_attr.DESC, QpStructs.ibv_send_wr.DESC,
                        QpStructs.ibv_recv_wr.DESC, QpStructs.ibv_ece.DESC, QpStructs.ibv_qp_rate_limit_attr.DESC, QpStructs.ibv_srq_attr.DESC, QpStructs.ibv_srq_init_attr.DESC,
                        QpStructs.ibv_srq.DESC, QpStructs.ibv_srq_init_attr_ex.DESC, QpStructs.ibv_qp_open_attr.DESC,
                        ContextStructs.ibv_gid_entry.DESC)),
                new Family("poll.h", List.of(PosixStructs.pollfd.DESC)),
                new Family("netinet/in.h", List.of(PosixStructs.sockaddr.DESC, PosixStructs.sockaddr_storage.DESC,
                        PosixStructs.sockaddr_in.DESC, PosixStructs.sockaddr_in6.DESC)),
                new Family("rdma/rdma_cma.h", List.of(RdmaCmStructs.rdma_ib_addr.DESC, RdmaCmStructs.rdma_addr.DESC,
                        RdmaCmStructs.rdma_route.DESC, RdmaCmStructs.rdma_event_channel.DESC,
                        RdmaCmStructs.rdma_cm_id.DESC, RdmaCmStructs.rdma_conn_param.DESC,
                        RdmaCmStructs.rdma_ud_param.DESC, RdmaCmStructs.rdma_cm_event.DESC,
                        RdmaCmStructs.rdma_cm_join_mc_attr_ex.DESC)));
    }

    /**
     * Every size and member offset of a family's structs, as C names them: key {@code struct} for
     * {@code sizeof}, {@code struct member.path} for {@code offsetof} (anonymous members left out of the path).
     */
    public static Map<String, Long> sizesAndOffsets(Family family) {
        Map<String, Long> values = new LinkedHashMap<>();
        for (CLayout s : family.structs()) {
            values.put(s.name(), s.size());
            collect(values, s.name(), "", s, 0);
        }
        return values;
    }

    private static void collect(Map<String, Long> out, String struct, String prefix, CLayout group, long base) {
        for (CLayout.Member m : group.members()) {
            String dotted = prefix.isEmpty() ? m.layout().name() : prefix + "." + m.layout().name();
            long at = base + m.offset();
            if (!m.layout().name().startsWith(CLayout.ANONYMOUS)) {
                out.put(struct + " " + CLayout.cPath(dotted), at);
            }
            if (!m.layout().members().isEmpty()) {
                collect(out, struct, dotted, m.layout(), at);
            }
        }
    }

    /**
     * Prints one C11 {@code _Static_assert} per size and offset of the families of the headers named, for a C
     * file that includes those headers ({@code benchmarks/c/build-nullverbs}).
     *
     * @param headers the headers, as {@link Family#header()} names them
     */
    public static void main(String[] headers) {
        for (Family f : all()) {
            if (!List.of(headers).contains(f.header())) {
                continue;
            }
            sizesAndOffsets(f).forEach((key, v) -> {
                int sp = key.indexOf(' ');
                String expr = sp < 0 ? "sizeof(struct " + key + ")"
                        : "offsetof(struct " + key.substring(0, sp) + ", " + key.substring(sp + 1) + ")";
                System.out.println("_Static_assert(" + expr + " == " + v + ", \"" + key + " is " + v
                        + " in provider-native-common\");");
            });
        }
    }
}
