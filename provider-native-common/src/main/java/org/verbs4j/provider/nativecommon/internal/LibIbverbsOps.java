package org.verbs4j.provider.nativecommon.internal;

import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.NULL_SETS;
import static org.verbs4j.provider.nativecommon.internal.ErrnoConvention.RETURNED;

/**
 * The control-path ops of {@code ibv_context.ops} and {@code struct verbs_context} that {@code verbs.h}'s inline
 * wrappers call, declared once (issue 28): member, C type and errno convention ({@link COp}). Each method takes the
 * op's address first, as the object model found it from this declaration ({@link NativeContextSupport#op}, which
 * checks {@code verbs_context.sz} for an extended op), or, for an op of an object ({@code ibv_dm}'s copies), from
 * the object's struct; {@code provider-ffm} and
 * {@code provider-jnr} bind every method from the declarations alone (an address-less downcall handle, or a jffi call
 * context, per method), and {@link DeclaredLibrary} applies the convention and answers {@code -EOPNOTSUPP} for
 * address 0. So each method answers in {@link NativeErrors}' contract, and the object model calls it directly. A
 * new op verb is one method here. The data-path ops ({@code post_send}, {@code post_recv}, {@code poll_cq}) are not
 * declared here: they are written by hand in each binding.
 *
 * @see "the libibverbs man pages of each inline verb"
 */
public interface LibIbverbsOps {
    @COp(struct = "ibv_context_ops", value = "int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only)",
            errno = RETURNED)
    int req_notify_cq(long fn, long cq, int solicitedOnly);

    @COp(struct = "ibv_context_ops", value = "int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,"
            + " struct ibv_mw_bind *mw_bind)", errno = RETURNED)
    int bind_mw(long fn, long qp, long mw, long mwBind);

    @COp(struct = "ibv_context_ops", value = "struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type)",
            errno = NULL_SETS)
    long alloc_mw(long fn, long pd, int type);

    @COp(struct = "ibv_context_ops", value = "int (*dealloc_mw)(struct ibv_mw *mw)", errno = RETURNED)
    int dealloc_mw(long fn, long mw);

    @COp(struct = "verbs_context", value = "int (*query_port)(struct ibv_context *context, uint8_t port_num,"
            + " struct ibv_port_attr *port_attr, size_t port_attr_len)", errno = RETURNED)
    int query_port(long fn, long context, int portNum, long portAttr, long portAttrLen);

    @COp(struct = "verbs_context", value = "struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *context,"
            + " struct ibv_parent_domain_init_attr *attr)", errno = NULL_SETS)
    long alloc_parent_domain(long fn, long context, long attr);

    @COp(struct = "verbs_context", value = "int (*dealloc_td)(struct ibv_td *td)", errno = RETURNED)
    int dealloc_td(long fn, long td);

    @COp(struct = "verbs_context", value = "struct ibv_td *(*alloc_td)(struct ibv_context *context,"
            + " struct ibv_td_init_attr *init_attr)", errno = NULL_SETS)
    long alloc_td(long fn, long context, long initAttr);

    @COp(struct = "verbs_context", value = "struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,"
            + " struct ibv_cq_init_attr_ex *init_attr)", errno = NULL_SETS)
    long create_cq_ex(long fn, long context, long initAttr);

    @COp(struct = "verbs_context", value = "int (*query_device_ex)(struct ibv_context *context,"
            + " const struct ibv_query_device_ex_input *input, struct ibv_device_attr_ex *attr, size_t attr_size)",
            errno = RETURNED)
    int query_device_ex(long fn, long context, long input, long attr, long attrSize);

    @COp(struct = "verbs_context", value = "struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,"
            + " struct ibv_qp_init_attr_ex *qp_init_attr_ex)", errno = NULL_SETS)
    long create_qp_ex(long fn, long context, long qpInitAttrEx);

    @COp(struct = "verbs_context", value = "int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,"
            + " uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sges)", errno = RETURNED)
    int advise_mr(long fn, long pd, int advice, int flags, long sgList, int numSges);

    @COp(struct = "verbs_context", value = "int (*query_rt_values)(struct ibv_context *context,"
            + " struct ibv_values_ex *values)", errno = RETURNED)
    int query_rt_values(long fn, long context, long values);

    @COp(struct = "verbs_context", value = "int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)",
            errno = RETURNED)
    int modify_cq(long fn, long cq, long attr);

    @COp(struct = "verbs_context", value = "int (*modify_qp_rate_limit)(struct ibv_qp *qp,"
            + " struct ibv_qp_rate_limit_attr *attr)", errno = RETURNED)
    int modify_qp_rate_limit(long fn, long qp, long attr);

    @COp(struct = "verbs_context", value = "int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num)",
            errno = RETURNED)
    int get_srq_num(long fn, long srq, long srqNum);

    @COp(struct = "verbs_context", value = "struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,"
            + " struct ibv_xrcd_init_attr *xrcd_init_attr)", errno = NULL_SETS)
    long open_xrcd(long fn, long context, long xrcdInitAttr);

    @COp(struct = "verbs_context", value = "int (*close_xrcd)(struct ibv_xrcd *xrcd)", errno = RETURNED)
    int close_xrcd(long fn, long xrcd);

    @COp(struct = "verbs_context", value = "struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,"
            + " struct ibv_srq_init_attr_ex *srq_init_attr_ex)", errno = NULL_SETS)
    long create_srq_ex(long fn, long context, long srqInitAttrEx);

    @COp(struct = "verbs_context", value = "struct ibv_qp *(*open_qp)(struct ibv_context *context,"
            + " struct ibv_qp_open_attr *attr)", errno = NULL_SETS)
    long open_qp(long fn, long context, long attr);

    @COp(struct = "verbs_context", value = "struct ibv_dm *(*alloc_dm)(struct ibv_context *context,"
            + " struct ibv_alloc_dm_attr *attr)", errno = NULL_SETS)
    long alloc_dm(long fn, long context, long attr);

    @COp(struct = "verbs_context", value = "int (*free_dm)(struct ibv_dm *dm)", errno = RETURNED)
    int free_dm(long fn, long dm);

    @COp(struct = "verbs_context", value = "struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,"
            + " uint64_t dm_offset, size_t length, unsigned int access)", errno = NULL_SETS)
    long reg_dm_mr(long fn, long pd, long dm, long dmOffset, long length, int access);

    @COp(struct = "ibv_dm", value = "int (*memcpy_to_dm)(struct ibv_dm *dm, uint64_t dm_offset,"
            + " const void *host_addr, size_t length)", errno = RETURNED)
    int memcpy_to_dm(long fn, long dm, long dmOffset, long hostAddr, long length);

    @COp(struct = "ibv_dm", value = "int (*memcpy_from_dm)(void *host_addr, struct ibv_dm *dm,"
            + " uint64_t dm_offset, size_t length)", errno = RETURNED)
    int memcpy_from_dm(long fn, long hostAddr, long dm, long dmOffset, long length);
}
