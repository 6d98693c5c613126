package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.NONE;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.NULL_SETS;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.RETURNED;

/**
 * The functions of {@code librdmacm.so.1} the connection manager calls, declared once, as {@link LibIbverbs}
 * declares libibverbs' (issue 28): name, C signature and errno convention. {@code provider-ffm} and
 * {@code provider-jnr} each bind this interface from the declarations alone, and {@link LibRdmaCm} calls it: a new
 * librdmacm function is one method here. Every {@code int} function answers 0 or −errno
 * ({@link ErrnoConvention#RETURNED}: librdmacm returns −1 and sets {@code errno}).
 *
 * @see "the librdmacm man pages of each function"
 */
public interface LibRdmaCmFunctions {
    @CFunction(value = "struct rdma_event_channel *rdma_create_event_channel(void)", errno = NULL_SETS)
    long rdma_create_event_channel();

    @CFunction(value = "void rdma_destroy_event_channel(struct rdma_event_channel *channel)", errno = NONE)
    void rdma_destroy_event_channel(long channel);

    @CFunction(value = "int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,"
            + " void *context, enum rdma_port_space ps)", errno = RETURNED)
    int rdma_create_id(long channel, long idOut, long context, int portSpace);

    @CFunction(value = "int rdma_destroy_id(struct rdma_cm_id *id)", errno = RETURNED)
    int rdma_destroy_id(long id);

    @CFunction(value = "int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)", errno = RETURNED)
    int rdma_bind_addr(long id, long sockaddr);

    @CFunction(value = "int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,"
            + " struct sockaddr *dst_addr, int timeout_ms)", errno = RETURNED)
    int rdma_resolve_addr(long id, long src, long dst, int timeoutMs);

    @CFunction(value = "int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)", errno = RETURNED)
    int rdma_resolve_route(long id, int timeoutMs);

    @CFunction(value = "int rdma_listen(struct rdma_cm_id *id, int backlog)", errno = RETURNED)
    int rdma_listen(long id, int backlog);

    @CFunction(value = "int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)",
            errno = RETURNED)
    int rdma_connect(long id, long connParam);

    @CFunction(value = "int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)",
            errno = RETURNED)
    int rdma_accept(long id, long connParam);

    /** {@code private_data_len} is a {@code uint8_t}, passed in an {@code int}: the x86-64 ABI reads its low byte. */
    @CFunction(value = "int rdma_reject(struct rdma_cm_id *id, const void *private_data,"
            + " uint8_t private_data_len)", errno = RETURNED)
    int rdma_reject(long id, long privateData, int length);

    @CFunction(value = "int rdma_establish(struct rdma_cm_id *id)", errno = RETURNED)
    int rdma_establish(long id);

    @CFunction(value = "int rdma_disconnect(struct rdma_cm_id *id)", errno = RETURNED)
    int rdma_disconnect(long id);

    @CFunction(value = "int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)",
            errno = RETURNED)
    int rdma_migrate_id(long id, long channel);

    @CFunction(value = "int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,"
            + " int *qp_attr_mask)", errno = RETURNED)
    int rdma_init_qp_attr(long id, long qpAttr, long mask);

    @CFunction(value = "int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval,"
            + " size_t optlen)", errno = RETURNED)
    int rdma_set_option(long id, int level, int optname, long optval, long optlen);

    @CFunction(value = "int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)",
            errno = RETURNED)
    int rdma_join_multicast(long id, long addr, long context);

    @CFunction(value = "int rdma_join_multicast_ex(struct rdma_cm_id *id,"
            + " struct rdma_cm_join_mc_attr_ex *mc_join_attr, void *context)", errno = RETURNED)
    int rdma_join_multicast_ex(long id, long mcJoinAttr, long context);

    @CFunction(value = "int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)", errno = RETURNED)
    int rdma_leave_multicast(long id, long addr);

    @CFunction(value = "int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)",
            errno = RETURNED)
    int rdma_get_cm_event(long channel, long eventOut);

    @CFunction(value = "int rdma_ack_cm_event(struct rdma_cm_event *event)", errno = RETURNED)
    int rdma_ack_cm_event(long event);
}
