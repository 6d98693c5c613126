package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.CLayout.ANONYMOUS;
import static org.verbs4j.provider.nativecommon.internal.CLayout.gid;
import static org.verbs4j.provider.nativecommon.internal.CLayout.ptr;
import static org.verbs4j.provider.nativecommon.internal.CLayout.struct;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u16;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u32;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u8;
import static org.verbs4j.provider.nativecommon.internal.CLayout.union;

/**
 * The connection-manager structs of {@code rdma/rdma_cma.h} (librdmacm) that {@link LibRdmaCm} reads and
 * writes: {@code rdma_cm_id} with its {@code route.addr}, {@code rdma_cm_event} with {@code param.conn} and
 * {@code param.ud}, {@code rdma_conn_param}, {@code rdma_ud_param} and {@code rdma_event_channel}. The socket
 * addresses inside {@code rdma_addr} are {@link PosixStructs}', the {@code ibv_ah_attr} of {@code rdma_ud_param}
 * is {@link QpStructs}'.
 *
 * <p>Each nested class, named after its C struct, holds the struct's {@code DESC} (the layout as rdma-core 44
 * declares it on x86-64), {@code SIZEOF} and the byte offset {@code path$off} of each field the bindings use,
 * the C path's dots written as {@code $} (anonymous unions left out). They are {@code static final}, so the JIT
 * folds them. {@code StructLayoutTest} checks every size and offset against the installed header with gcc.
 */
public final class RdmaCmStructs {
    private RdmaCmStructs() {}

    /** {@code struct rdma_ib_addr}: the source and destination GIDs and the P_Key of a route. */
    public static final class rdma_ib_addr {
        /** The layout. */
        public static final CLayout DESC = struct("rdma_ib_addr", gid("sgid"), gid("dgid"), u16("pkey"));
        /** {@code sizeof(struct rdma_ib_addr)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private rdma_ib_addr() {}
    }

    /**
     * {@code struct rdma_addr}: two anonymous unions of the socket addresses (source, then destination), each
     * as large as a {@code sockaddr_storage}, and the union {@code addr} of one {@code rdma_ib_addr ibaddr}.
     */
    public static final class rdma_addr {
        /** The layout. */
        public static final CLayout DESC = struct("rdma_addr",
                union(ANONYMOUS + "0", PosixStructs.sockaddr.DESC.withName("src_addr"),
                        PosixStructs.sockaddr_in.DESC.withName("src_sin"),
                        PosixStructs.sockaddr_in6.DESC.withName("src_sin6"),
                        PosixStructs.sockaddr_storage.DESC.withName("src_storage")),
                union(ANONYMOUS + "1", PosixStructs.sockaddr.DESC.withName("dst_addr"),
                        PosixStructs.sockaddr_in.DESC.withName("dst_sin"),
                        PosixStructs.sockaddr_in6.DESC.withName("dst_sin6"),
                        PosixStructs.sockaddr_storage.DESC.withName("dst_storage")),
                union("addr", rdma_ib_addr.DESC.withName("ibaddr")));
        /** {@code sizeof(struct rdma_addr)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private rdma_addr() {}
    }

    /** {@code struct rdma_route}. */
    public static final class rdma_route {
        /** The layout. */
        public static final CLayout DESC = struct("rdma_route",
                rdma_addr.DESC.withName("addr"), ptr("path_rec"), u32("num_paths"));
        /** {@code sizeof(struct rdma_route)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private rdma_route() {}
    }

    /** {@code struct rdma_event_channel}: the file descriptor events arrive on. */
    public static final class rdma_event_channel {
        /** The layout. */
        public static final CLayout DESC = struct("rdma_event_channel", u32("fd"));
        /** {@code sizeof(struct rdma_event_channel)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long fd$off = DESC.offset("fd");

        private rdma_event_channel() {}
    }

    /** {@code struct rdma_cm_id}. */
    public static final class rdma_cm_id {
        /** The layout. */
        public static final CLayout DESC = struct("rdma_cm_id",
                ptr("verbs"), ptr("channel"), ptr("context"), ptr("qp"), rdma_route.DESC.withName("route"),
                u32("ps"), u8("port_num"), ptr("event"), ptr("send_cq_channel"), ptr("send_cq"),
                ptr("recv_cq_channel"), ptr("recv_cq"), ptr("srq"), ptr("pd"), u32("qp_type"));
        /** {@code sizeof(struct rdma_cm_id)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long verbs$off = DESC.offset("verbs");
        public static final long route$addr$src_addr$off = DESC.offset("route.addr." + ANONYMOUS + "0.src_addr");
        public static final long route$addr$dst_addr$off = DESC.offset("route.addr." + ANONYMOUS + "1.dst_addr");
        public static final long port_num$off = DESC.offset("port_num");

        private rdma_cm_id() {}
    }

    /** {@code struct rdma_conn_param}: what {@code rdma_connect} and {@code rdma_accept} take. */
    public static final class rdma_conn_param {
        /** The layout. */
        public static final CLayout DESC = struct("rdma_conn_param",
                ptr("private_data"), u8("private_data_len"), u8("responder_resources"), u8("initiator_depth"),
                u8("flow_control"), u8("retry_count"), u8("rnr_retry_count"), u8("srq"), u32("qp_num"));
        /** {@code sizeof(struct rdma_conn_param)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long private_data$off = DESC.offset("private_data");
        public static final long private_data_len$off = DESC.offset("private_data_len");
        public static final long responder_resources$off = DESC.offset("responder_resources");
        public static final long initiator_depth$off = DESC.offset("initiator_depth");
        public static final long retry_count$off = DESC.offset("retry_count");
        public static final long rnr_retry_count$off = DESC.offset("rnr_retry_count");
        public static final long srq$off = DESC.offset("srq");
        public static final long qp_num$off = DESC.offset("qp_num");

        private rdma_conn_param() {}
    }

    /** {@code struct rdma_ud_param}: the {@code param.ud} of a UD event. */
    public static final class rdma_ud_param {
        /** The layout. */
        public static final CLayout DESC = struct("rdma_ud_param",
                ptr("private_data"), u8("private_data_len"), QpStructs.ibv_ah_attr.DESC.withName("ah_attr"),
                u32("qp_num"), u32("qkey"));
        /** {@code sizeof(struct rdma_ud_param)}, bytes. */
        public static final long SIZEOF = DESC.size();

        private rdma_ud_param() {}
    }

    /** {@code struct rdma_cm_join_mc_attr_ex}: what {@code rdma_join_multicast_ex} takes. */
    public static final class rdma_cm_join_mc_attr_ex {
        /** The layout. */
        public static final CLayout DESC = struct("rdma_cm_join_mc_attr_ex", u32("comp_mask"), u32("join_flags"),
                ptr("addr"));
        /** {@code sizeof(struct rdma_cm_join_mc_attr_ex)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long comp_mask$off = DESC.offset("comp_mask");
        public static final long join_flags$off = DESC.offset("join_flags");
        public static final long addr$off = DESC.offset("addr");

        private rdma_cm_join_mc_attr_ex() {}
    }

    /** {@code struct rdma_cm_event}: an event, its {@code param} a union of the connected and the UD one. */
    public static final class rdma_cm_event {
        /** The layout. */
        public static final CLayout DESC = struct("rdma_cm_event",
                ptr("id"), ptr("listen_id"), u32("event"), u32("status"),
                union("param", rdma_conn_param.DESC.withName("conn"), rdma_ud_param.DESC.withName("ud")));
        /** {@code sizeof(struct rdma_cm_event)}, bytes. */
        public static final long SIZEOF = DESC.size();
        public static final long id$off = DESC.offset("id");
        public static final long listen_id$off = DESC.offset("listen_id");
        public static final long event$off = DESC.offset("event");
        public static final long status$off = DESC.offset("status");
        public static final long param$conn$private_data$off = DESC.offset("param.conn.private_data");
        public static final long param$conn$private_data_len$off = DESC.offset("param.conn.private_data_len");
        public static final long param$conn$responder_resources$off =
                DESC.offset("param.conn.responder_resources");
        public static final long param$conn$initiator_depth$off = DESC.offset("param.conn.initiator_depth");
        public static final long param$ud$private_data$off = DESC.offset("param.ud.private_data");
        public static final long param$ud$ah_attr$off = DESC.offset("param.ud.ah_attr");
        public static final long param$ud$qp_num$off = DESC.offset("param.ud.qp_num");
        public static final long param$ud$qkey$off = DESC.offset("param.ud.qkey");

        private rdma_cm_event() {}
    }
}
