package org.verbs4j.provider.jnr.internal;

import jnr.ffi.annotations.IgnoreError;
import jnr.ffi.annotations.SaveError;

/**
 * The functions of {@code librdmacm.so.1} the connection manager calls, bound through JNR-FFI. Pointers are
 * raw addresses in {@code long}s; each function that fails with -1 (or NULL) saves errno.
 *
 * @see "rdma_cm(7)"
 */
public interface Rdmacm {
    @SaveError
    long rdma_create_event_channel();

    @IgnoreError
    void rdma_destroy_event_channel(long channel);

    @SaveError
    int rdma_create_id(long channel, long idOut, long context, int portSpace);

    @SaveError
    int rdma_destroy_id(long id);

    @SaveError
    int rdma_bind_addr(long id, long sockaddr);

    @SaveError
    int rdma_resolve_addr(long id, long src, long dst, int timeoutMs);

    @SaveError
    int rdma_resolve_route(long id, int timeoutMs);

    @SaveError
    int rdma_listen(long id, int backlog);

    @SaveError
    int rdma_connect(long id, long connParam);

    @SaveError
    int rdma_accept(long id, long connParam);

    @SaveError
    int rdma_reject(long id, long privateData, byte length);

    @SaveError
    int rdma_establish(long id);

    @SaveError
    int rdma_disconnect(long id);

    @SaveError
    int rdma_migrate_id(long id, long channel);

    @SaveError
    int rdma_init_qp_attr(long id, long qpAttr, long mask);

    @SaveError
    int rdma_set_option(long id, int level, int optname, long optval, long optlen);

    @SaveError
    int rdma_join_multicast(long id, long addr, long context);

    @SaveError
    int rdma_join_multicast_ex(long id, long mcJoinAttr, long context);

    @SaveError
    int rdma_leave_multicast(long id, long addr);

    @SaveError
    int rdma_get_cm_event(long channel, long eventOut);

    @SaveError
    int rdma_ack_cm_event(long event);
}
