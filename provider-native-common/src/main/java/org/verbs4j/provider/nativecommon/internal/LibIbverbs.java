package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.CODE_SETS;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.NONE;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.NONNEGATIVE;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.NULL_SETS;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.RETURNED;

/**
 * The control-path functions libibverbs exports, declared once (issue 28): name, C signature and errno convention.
 * {@code provider-ffm} and {@code provider-jnr} each bind this interface from the declarations alone (a downcall
 * handle, or a jffi call context, per method) and apply the convention to every call, so each method answers in
 * {@link NativeErrors}' contract: a pointer or −errno ({@link ErrnoConvention#NULL_SETS}), 0 or −errno
 * ({@link ErrnoConvention#RETURNED}). A new exported control verb is one method here. The data path is not
 * declared here: it is written by hand in each binding ({@link ContextOps}, {@link QpExOps}, {@link CqExOps}); the
 * control-path ops of the context are declared in {@link LibIbverbsOps}.
 *
 * @see "the libibverbs man pages of each function"
 */
public interface LibIbverbs {
    @CFunction(value = "struct ibv_device **ibv_get_device_list(int *num_devices)", errno = NULL_SETS)
    long ibv_get_device_list(long numDevices);

    @CFunction(value = "void ibv_free_device_list(struct ibv_device **list)", errno = NONE)
    void ibv_free_device_list(long list);

    @CFunction(value = "const char *ibv_get_device_name(struct ibv_device *device)", errno = NONE)
    long ibv_get_device_name(long device);

    @CFunction(value = "__be64 ibv_get_device_guid(struct ibv_device *device)", errno = NONE)
    long ibv_get_device_guid(long device);

    @CFunction(value = "int ibv_get_device_index(struct ibv_device *device)", errno = NONE)
    int ibv_get_device_index(long device);

    @CFunction(value = "int ibv_fork_init(void)", errno = RETURNED)
    int ibv_fork_init();

    @CFunction(value = "enum ibv_fork_status ibv_is_fork_initialized(void)", errno = NONE)
    int ibv_is_fork_initialized();

    @CFunction(value = "struct ibv_context *ibv_open_device(struct ibv_device *device)", errno = NULL_SETS)
    long ibv_open_device(long device);

    @CFunction(value = "int ibv_close_device(struct ibv_context *context)", errno = RETURNED)
    int ibv_close_device(long context);

    @CFunction(value = "int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)",
            errno = RETURNED)
    int ibv_query_device(long context, long deviceAttr);

    /** The exported, compatibility symbol, for a context without {@code verbs_context.query_port}. */
    @CFunction(value = "int ibv_query_port(struct ibv_context *context, uint8_t port_num,"
            + " struct _compat_ibv_port_attr *port_attr)", errno = RETURNED)
    int ibv_query_port(long context, int portNum, long portAttr);

    @CFunction(value = "int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,"
            + " union ibv_gid *gid)", errno = RETURNED)
    int ibv_query_gid(long context, int portNum, int index, long gid);

    @CFunction(value = "struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)",
            errno = NULL_SETS)
    long ibv_create_comp_channel(long context);

    @CFunction(value = "int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)", errno = RETURNED)
    int ibv_destroy_comp_channel(long channel);

    @CFunction(value = "int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)",
            errno = RETURNED)
    int ibv_get_cq_event(long channel, long cqOut, long cqContextOut);

    @CFunction(value = "void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)", errno = NONE)
    void ibv_ack_cq_events(long cq, int nevents);

    @CFunction(value = "int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)",
            errno = RETURNED)
    int ibv_get_async_event(long context, long event);

    @CFunction(value = "void ibv_ack_async_event(struct ibv_async_event *event)", errno = NONE)
    void ibv_ack_async_event(long event);

    @CFunction(value = "struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)", errno = NULL_SETS)
    long ibv_alloc_pd(long context);

    @CFunction(value = "int ibv_dealloc_pd(struct ibv_pd *pd)", errno = RETURNED)
    int ibv_dealloc_pd(long pd);

    @CFunction(value = "struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,"
            + " unsigned int access)", errno = NULL_SETS)
    long ibv_reg_mr_iova2(long pd, long addr, long length, long iova, int access);

    @CFunction(value = "int ibv_dereg_mr(struct ibv_mr *mr)", errno = RETURNED)
    int ibv_dereg_mr(long mr);

    @CFunction(value = "struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,"
            + " uint64_t iova, int fd, int access)", errno = NULL_SETS)
    long ibv_reg_dmabuf_mr(long pd, long offset, long length, long iova, int fd, int access);

    @CFunction(value = "int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,"
            + " int access)", errno = CODE_SETS)
    int ibv_rereg_mr(long mr, int flags, long pd, long addr, long length, int access);

    @CFunction(value = "struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)", errno = NULL_SETS)
    long ibv_create_ah(long pd, long attr);

    @CFunction(value = "int ibv_destroy_ah(struct ibv_ah *ah)", errno = RETURNED)
    int ibv_destroy_ah(long ah);

    @CFunction(value = "struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,"
            + " struct ibv_comp_channel *channel, int comp_vector)", errno = NULL_SETS)
    long ibv_create_cq(long context, int cqe, long cqContext, long channel, int compVector);

    @CFunction(value = "int ibv_destroy_cq(struct ibv_cq *cq)", errno = RETURNED)
    int ibv_destroy_cq(long cq);

    @CFunction(value = "struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)",
            errno = NULL_SETS)
    long ibv_create_qp(long pd, long initAttr);

    @CFunction(value = "struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)", errno = NULL_SETS)
    long ibv_qp_to_qp_ex(long qp);

    @CFunction(value = "int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)",
            errno = RETURNED)
    int ibv_modify_qp(long qp, long attr, int attrMask);

    @CFunction(value = "int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,"
            + " struct ibv_qp_init_attr *init_attr)", errno = RETURNED)
    int ibv_query_qp(long qp, long attr, int attrMask, long initAttr);

    @CFunction(value = "int ibv_destroy_qp(struct ibv_qp *qp)", errno = RETURNED)
    int ibv_destroy_qp(long qp);

    @CFunction(value = "int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)", errno = RETURNED)
    int ibv_query_ece(long qp, long ece);

    @CFunction(value = "int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)", errno = RETURNED)
    int ibv_set_ece(long qp, long ece);

    @CFunction(value = "int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)",
            errno = NONE)
    int ibv_query_qp_data_in_order(long qp, int op, int flags);

    @CFunction(value = "struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)",
            errno = NULL_SETS)
    long ibv_create_srq(long pd, long initAttr);

    @CFunction(value = "int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)",
            errno = RETURNED)
    int ibv_modify_srq(long srq, long attr, int mask);

    @CFunction(value = "int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)", errno = RETURNED)
    int ibv_query_srq(long srq, long attr);

    @CFunction(value = "int ibv_destroy_srq(struct ibv_srq *srq)", errno = RETURNED)
    int ibv_destroy_srq(long srq);

    @CFunction(value = "int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)",
            errno = RETURNED)
    int ibv_attach_mcast(long qp, long gid, int lid);

    @CFunction(value = "int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)",
            errno = RETURNED)
    int ibv_detach_mcast(long qp, long gid, int lid);

    @CFunction(value = "int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)",
            errno = RETURNED)
    int ibv_query_pkey(long context, int portNum, int index, long pkey);

    @CFunction(value = "int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)",
            errno = NONNEGATIVE)
    int ibv_get_pkey_index(long context, int portNum, int pkey);

    @CFunction(value = "int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,"
            + " struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)", errno = RETURNED)
    int _ibv_query_gid_ex(long context, int portNum, int gidIndex, long entry, int flags, long entrySize);

    @CFunction(value = "ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,"
            + " size_t max_entries, uint32_t flags, size_t entry_size)", errno = NONNEGATIVE)
    long _ibv_query_gid_table(long context, long entries, long maxEntries, int flags, long entrySize);

    @CFunction(value = "int ibv_resize_cq(struct ibv_cq *cq, int cqe)", errno = RETURNED)
    int ibv_resize_cq(long cq, int cqe);

    @CFunction(value = "int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,"
            + " struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)", errno = RETURNED)
    int ibv_init_ah_from_wc(long context, int portNum, long wc, long grh, long ahAttr);
}
