package org.verbs4j.provider.jnr.internal;

import jnr.ffi.annotations.IgnoreError;
import jnr.ffi.annotations.SaveError;

/**
 * The functions {@code libibverbs.so.1} exports, bound through JNR-FFI. Pointers are raw addresses in
 * {@code long}s so that no call allocates a wrapper. Functions that report failure through errno save it
 * ({@link jnr.ffi.Runtime#getLastError()}); the others ignore it.
 *
 * <p>The {@code static inline} verbs of {@code verbs.h} are not here: {@link InlineVerbs} calls them through
 * the function pointers the provider library installs.
 */
public interface Ibverbs {
    /** @see "ibv_get_device_list(3)" */
    @SaveError
    long ibv_get_device_list(long numDevices);

    @IgnoreError
    void ibv_free_device_list(long list);

    @IgnoreError
    long ibv_get_device_name(long device);

    /** @return the node GUID in network byte order */
    @IgnoreError
    long ibv_get_device_guid(long device);

    @SaveError
    long ibv_open_device(long device);

    @SaveError
    int ibv_close_device(long context);

    @SaveError
    int ibv_query_device(long context, long deviceAttr);

    @SaveError
    int ibv_query_port(long context, int portNum, long portAttr);

    @SaveError
    int ibv_query_gid(long context, int portNum, int index, long gid);

    @SaveError
    long ibv_alloc_pd(long context);

    @SaveError
    int ibv_dealloc_pd(long pd);

    @SaveError
    long ibv_reg_mr_iova2(long pd, long addr, long length, long iova, int access);

    @SaveError
    int ibv_dereg_mr(long mr);

    @SaveError
    long ibv_create_ah(long pd, long ahAttr);

    @SaveError
    int ibv_destroy_ah(long ah);

    @SaveError
    long ibv_create_comp_channel(long context);

    @SaveError
    int ibv_destroy_comp_channel(long channel);

    @SaveError
    long ibv_create_cq(long context, int cqe, long cqContext, long channel, int compVector);

    @SaveError
    int ibv_destroy_cq(long cq);

    @SaveError
    int ibv_get_cq_event(long channel, long cqOut, long cqContextOut);

    @IgnoreError
    void ibv_ack_cq_events(long cq, int nevents);

    @SaveError
    long ibv_create_srq(long pd, long srqInitAttr);

    @SaveError
    int ibv_modify_srq(long srq, long srqAttr, int srqAttrMask);

    @SaveError
    int ibv_query_srq(long srq, long srqAttr);

    @SaveError
    int ibv_destroy_srq(long srq);

    @SaveError
    long ibv_create_qp(long pd, long qpInitAttr);

    @SaveError
    long ibv_qp_to_qp_ex(long qp);

    @SaveError
    int ibv_modify_qp(long qp, long attr, int attrMask);

    @SaveError
    int ibv_query_qp(long qp, long attr, int attrMask, long initAttr);

    @SaveError
    int ibv_destroy_qp(long qp);

    @SaveError
    int ibv_get_async_event(long context, long event);

    @IgnoreError
    void ibv_ack_async_event(long event);

    /** @see "ibv_query_qp_data_in_order(3)" */
    @IgnoreError
    int ibv_query_qp_data_in_order(long qp, int op, int flags);
}
