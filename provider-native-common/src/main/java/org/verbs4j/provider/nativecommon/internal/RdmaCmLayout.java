package org.verbs4j.provider.nativecommon.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The structs of {@code <rdma/rdma_cma.h>} (rdma-core 44) that the native providers read and write, described
 * once for both: each member with its C name, size and alignment, laid out by the x86-64 System V rules (each
 * member at its natural alignment, the struct padded to its largest). {@code RdmaCmLayoutTest} compares every
 * offset and size with what gcc's {@code offsetof} and {@code sizeof} say about the installed header.
 *
 * <p>Anonymous C unions are described as one member named after the union member the providers use
 * ({@code route.addr.src_addr} is the first member of the anonymous union of {@code sockaddr},
 * {@code sockaddr_in}, {@code sockaddr_in6} and {@code sockaddr_storage}, and takes its size).
 */
public final class RdmaCmLayout {
    /** A struct: its members' offsets by dotted C path, its size and alignment. */
    public static final class Struct {
        private final String name;
        private final Map<String, Long> offsets = new LinkedHashMap<>();
        /** Whether every member starts at 0. */
        private final boolean union;
        private long size;
        private long align = 1;

        private Struct(String name) {
            this(name, false);
        }

        private Struct(String name, boolean union) {
            this.name = name;
            this.union = union;
        }

        private Struct add(String member, long memberSize, long memberAlign) {
            if (union) {
                offsets.put(member, 0L);
                size = Math.max(size, memberSize);
            } else {
                size = (size + memberAlign - 1) / memberAlign * memberAlign;
                offsets.put(member, size);
                size += memberSize;
            }
            align = Math.max(align, memberAlign);
            return this;
        }

        private Struct add(String member, Struct nested) {
            add(member, nested.size, nested.align);
            long base = offsets.get(member);
            nested.offsets.forEach((path, off) -> offsets.put(member + "." + path, base + off));
            return this;
        }

        private Struct end() {
            size = (size + align - 1) / align * align;
            return this;
        }

        /** {@return the C name, such as {@code rdma_cm_id}} */
        public String name() {
            return name;
        }

        /** {@return {@code sizeof}, bytes} */
        public long size() {
            return size;
        }

        /** {@return the byte offset of a member by its dotted C path, such as {@code route.addr.dst_addr}} */
        public long offset(String path) {
            Long off = offsets.get(path);
            if (off == null) {
                throw new IllegalArgumentException(name + " has no member " + path + "; it has " + offsets.keySet());
            }
            return off;
        }

        /** {@return every member path with its offset, in declaration order} */
        public Map<String, Long> offsets() {
            return Map.copyOf(offsets);
        }
    }

    private RdmaCmLayout() {}

    private static final long PTR = 8;

    /** {@code struct sockaddr_storage}: 128 bytes, 8-aligned. */
    private static final long SOCKADDR_STORAGE = 128;

    /** {@code struct sockaddr_in}. */
    public static final Struct SOCKADDR_IN = new Struct("sockaddr_in").add("sin_family", 2, 2).add("sin_port", 2, 2)
            .add("sin_addr", 4, 4).add("sin_zero", 8, 1).end();

    /** {@code struct sockaddr_in6}. */
    public static final Struct SOCKADDR_IN6 = new Struct("sockaddr_in6").add("sin6_family", 2, 2)
            .add("sin6_port", 2, 2).add("sin6_flowinfo", 4, 4).add("sin6_addr", 16, 4).add("sin6_scope_id", 4, 4)
            .end();

    /** {@code struct rdma_ib_addr}: two {@code union ibv_gid} (8-aligned for their {@code __be64} view), a P_Key. */
    private static final Struct RDMA_IB_ADDR = new Struct("rdma_ib_addr").add("sgid", 16, 8).add("dgid", 16, 8)
            .add("pkey", 2, 2).end();

    /** {@code struct rdma_addr}; its member {@code addr} is a union of one {@code struct rdma_ib_addr ibaddr}. */
    private static final Struct RDMA_ADDR = new Struct("rdma_addr").add("src_addr", SOCKADDR_STORAGE, 8)
            .add("dst_addr", SOCKADDR_STORAGE, 8).add("addr", new Struct("addr", true).add("ibaddr", RDMA_IB_ADDR)
                    .end()).end();

    /** {@code struct rdma_route}. */
    private static final Struct RDMA_ROUTE = new Struct("rdma_route").add("addr", RDMA_ADDR).add("path_rec", PTR, PTR)
            .add("num_paths", 4, 4).end();

    /** {@code struct rdma_cm_id}. */
    public static final Struct RDMA_CM_ID = new Struct("rdma_cm_id").add("verbs", PTR, PTR).add("channel", PTR, PTR)
            .add("context", PTR, PTR).add("qp", PTR, PTR).add("route", RDMA_ROUTE).add("ps", 4, 4)
            .add("port_num", 1, 1).add("event", PTR, PTR).add("send_cq_channel", PTR, PTR).add("send_cq", PTR, PTR)
            .add("recv_cq_channel", PTR, PTR).add("recv_cq", PTR, PTR).add("srq", PTR, PTR).add("pd", PTR, PTR)
            .add("qp_type", 4, 4).end();

    /** {@code struct rdma_conn_param}. */
    public static final Struct RDMA_CONN_PARAM = new Struct("rdma_conn_param").add("private_data", PTR, PTR)
            .add("private_data_len", 1, 1).add("responder_resources", 1, 1).add("initiator_depth", 1, 1)
            .add("flow_control", 1, 1).add("retry_count", 1, 1).add("rnr_retry_count", 1, 1).add("srq", 1, 1)
            .add("qp_num", 4, 4).end();

    /** {@code struct ibv_ah_attr}, only as large as {@code rdma_ud_param} needs it. */
    private static final Struct IBV_AH_ATTR = new Struct("ibv_ah_attr").add("grh", new Struct("ibv_global_route")
            .add("dgid", 16, 8).add("flow_label", 4, 4).add("sgid_index", 1, 1).add("hop_limit", 1, 1)
            .add("traffic_class", 1, 1).end()).add("dlid", 2, 2).add("sl", 1, 1).add("src_path_bits", 1, 1)
            .add("static_rate", 1, 1).add("is_global", 1, 1).add("port_num", 1, 1).end();

    /** {@code struct rdma_ud_param}. */
    public static final Struct RDMA_UD_PARAM = new Struct("rdma_ud_param").add("private_data", PTR, PTR)
            .add("private_data_len", 1, 1).add("ah_attr", IBV_AH_ATTR).add("qp_num", 4, 4).add("qkey", 4, 4).end();

    /** {@code struct rdma_cm_event}. */
    public static final Struct RDMA_CM_EVENT = new Struct("rdma_cm_event").add("id", PTR, PTR)
            .add("listen_id", PTR, PTR).add("event", 4, 4).add("status", 4, 4)
            .add("param", new Struct("param", true).add("conn", RDMA_CONN_PARAM).add("ud", RDMA_UD_PARAM).end()).end();

    /** {@code struct rdma_event_channel}. */
    public static final Struct RDMA_EVENT_CHANNEL = new Struct("rdma_event_channel").add("fd", 4, 4).end();

    /** {@return the offset of a member of {@code param.conn} in {@code rdma_cm_event}} */
    public static long eventConn(String member) {
        return RDMA_CM_EVENT.offset("param.conn." + member);
    }

    /** {@return every struct described here, for the layout check} */
    public static java.util.List<Struct> all() {
        return java.util.List.of(SOCKADDR_IN, SOCKADDR_IN6, RDMA_CM_ID, RDMA_CONN_PARAM, RDMA_UD_PARAM, RDMA_CM_EVENT,
                RDMA_EVENT_CHANNEL);
    }
}
